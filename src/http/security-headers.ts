import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers on every response (@fastify/helmet): `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` with CSP `frame-ancestors 'none'`, `Referrer-Policy: no-referrer`,
 * and a Content-Security-Policy that fits the dashboard served at `/` (scripts and styles from
 * the same origin, inline style attributes, data: images and fonts, fetch to the same origin)
 * and Swagger UI at `/docs`. No inline scripts, no other origins, no plugins.
 *
 * API responses are never stored by a cache: every JSON response without a Cache-Control of
 * its own gets `no-store`. That covers the responses that carry a secret (login with its
 * session token, a new API key, a webhook's signing secret on create and rotate).
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  // The service may run on plain HTTP inside a network; no forced upgrade.
  'upgrade-insecure-requests': null,
};

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: true, directives: CONTENT_SECURITY_POLICY },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json') && !reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });
}
