import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import { ErrorCode } from './errors.js';

/** The dashboard's production build, beside the sources in the checkout. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
/** The website widget's build (scripts/build-widget.mjs): v1.js and panel-<hash>.js. */
export const DEFAULT_WIDGET_DIR = fileURLToPath(new URL('../../widget/dist', import.meta.url));

/** Paths that belong to the API: unknown ones stay JSON 404s, never the dashboard page. */
const API_PREFIXES = [
  '/api',
  '/v1',
  '/webhooks',
  '/docs',
  '/openapi.json',
  '/health',
  '/ready',
  '/metrics',
  '/widget',
];

export function isApiPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Serves the dashboard (a single-page app) at `/` from its production build. Unknown GET paths
 * outside the API answer index.html so deep links work; everything else keeps the JSON 404.
 * Without a build the service runs as before (API only).
 */
export interface WebAppOptions {
  /** Directory of the build (index.html, assets/); the checkout's web/dist by default. */
  dir?: string | undefined;
  /** Directory of the website widget's build; the checkout's widget/dist by default. */
  widgetDir?: string | undefined;
}

/**
 * The website widget at `/widget/`: loaded by other websites, so readable cross-origin (CORS
 * for the panel module, `Cross-Origin-Resource-Policy: cross-origin` for the loader script).
 * The loader's URL is versioned (`/widget/v1.js`) and cached briefly; the hashed panel chunk
 * never changes.
 */
const widgetAssets = fp<{ dir: string }>(async (app, options) => {
  await app.register(fastifyStatic, {
    root: options.dir,
    prefix: '/widget/',
    decorateReply: false,
    wildcard: false,
    index: false,
    cacheControl: false,
    preCompressed: true,
    allowedPath: (path) => /^\/?[A-Za-z0-9_-]+\.js$/.test(path),
    setHeaders: (res, path) => {
      res.setHeader(
        'cache-control',
        /\/panel-[A-Za-z0-9_-]+\.js$/.test(path)
          ? 'public, max-age=31536000, immutable'
          : 'public, max-age=300, stale-while-revalidate=3600',
      );
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('cross-origin-resource-policy', 'cross-origin');
    },
  });
});

export const webApp = fp<WebAppOptions>(async (app, options) => {
  const dir = options.dir ?? DEFAULT_WEB_DIR;
  const hasBuild = existsSync(`${dir}/index.html`);
  const widgetDir = options.widgetDir ?? DEFAULT_WIDGET_DIR;
  if (existsSync(`${widgetDir}/v1.js`)) await app.register(widgetAssets, { dir: widgetDir });
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: dir,
      wildcard: false,
      index: false,
      cacheControl: false,
      // The build writes .br and .gz beside every text asset: sent as they are, never compressed per request.
      preCompressed: true,
      // Hashed assets never change; index.html must always be fetched fresh.
      setHeaders: (res, path) => {
        res.setHeader(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const wantsPage = request.method === 'GET' || request.method === 'HEAD';
    if (hasBuild && wantsPage && !isApiPath(request.url)) {
      return reply.header('cache-control', 'no-cache').type('text/html').sendFile('index.html');
    }
    return reply.status(404).send({
      error: ErrorCode.notFound,
      code: ErrorCode.notFound,
      message: `Route ${request.method} ${request.url} not found`,
    });
  });
});
