import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { isApiPath } from '../../src/http/web-app.js';
import { describeApp } from '../helpers/app.js';

const dir = mkdtempSync(join(tmpdir(), 'parley-web-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Parley</title><div id="root"></div>');
writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log("app")');
// A built asset with the precompressed files the build writes beside it (marked, so the test sees
// which file was sent).
const bundle = `console.log(${JSON.stringify('x'.repeat(4000))});`;
writeFileSync(join(dir, 'assets', 'big-5678.js'), bundle);
writeFileSync(join(dir, 'assets', 'big-5678.js.br'), brotliCompressSync(`${bundle}//br`));
writeFileSync(join(dir, 'assets', 'big-5678.js.gz'), gzipSync(`${bundle}//gz`));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const API_PATHS = [
  '/api/nope',
  '/api',
  '/v1/nope',
  '/webhooks/nope',
  '/docs/nope/deeper',
  '/openapi.json/x',
  '/health/x',
  '/ready/x',
  '/metrics/x',
];

describe('isApiPath', () => {
  it.each([
    ['/api/bots', true],
    ['/api', true],
    ['/v1/bots?limit=1', true],
    ['/openapi.json', true],
    ['/metrics', true],
    ['/', false],
    ['/bots/123', false],
    ['/apiary', false],
    ['/v10', false],
    ['/login?next=/api', false],
  ])('%s → %s', (path, expected) => {
    expect(isApiPath(path)).toBe(expected);
  });
});

describeApp(
  'dashboard served at / with a build',
  (get) => {
    it('answers the app page at / and for deep links', async () => {
      for (const url of [
        '/',
        '/login',
        '/bots/5c3c1c5e-0000-4000-8000-000000000000/prompt',
        '/settings/api',
      ]) {
        const res = await get().app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toContain('text/html');
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.body).toContain('<div id="root">');
      }
    });

    it('serves built assets with a long cache lifetime', async () => {
      const res = await get().app.inject({ method: 'GET', url: '/assets/app-1234.js' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('console.log');
      expect(res.headers['cache-control']).toContain('immutable');
    });

    it('sends the precompressed file the browser accepts, and the plain one otherwise', async () => {
      const url = '/assets/big-5678.js';
      const br = await get().app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['cache-control']).toContain('immutable');
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(`${bundle}//br`);
      const gz = await get().app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(`${bundle}//gz`);
      const plain = await get().app.inject({ method: 'GET', url });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(bundle);
    });

    it('compresses JSON of 1 KB and more when asked, and leaves small answers alone', async () => {
      const doc = await get().app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(doc.statusCode).toBe(200);
      expect(doc.headers['content-encoding']).toBe('gzip');
      const inflated = gunzipSync(doc.rawPayload);
      expect(JSON.parse(inflated.toString())).toHaveProperty('openapi');
      expect(doc.rawPayload.length).toBeLessThan(inflated.length / 3);
      const health = await get().app.inject({
        method: 'GET',
        url: '/health',
        headers: { 'accept-encoding': 'gzip, br' },
      });
      expect(health.headers['content-encoding']).toBeUndefined();
      expect(health.json()).toMatchObject({ status: 'ok' });
    });

    it('never inflates a compressed request body', async () => {
      const res = await get().app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        payload: gzipSync(JSON.stringify({ email: 'a@example.com', password: 'x' })),
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.statusCode).not.toBe(401);
    });

    it('keeps JSON 404s for unknown API paths', async () => {
      for (const url of API_PATHS) {
        const res = await get().app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.json(), url).toMatchObject({ error: 'not_found' });
      }
    });

    it('keeps JSON 404s for other methods on unknown paths', async () => {
      const res = await get().app.inject({ method: 'POST', url: '/somewhere', payload: {} });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    });

    it('leaves the API routes alone', async () => {
      const health = await get().app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.headers['content-type']).toContain('application/json');
      const me = await get().app.inject({ method: 'GET', url: '/api/me' });
      expect(me.statusCode).toBe(401);
    });

    it('does not serve files outside the build', async () => {
      const res = await get().app.inject({ method: 'GET', url: '/assets/../../package.json' });
      expect(res.body).not.toContain('"name": "parley"');
    });
  },
  { env: { PARLEY_WEB_DIR: dir } },
);

describeApp(
  'without a build',
  (get) => {
    it('answers JSON 404 everywhere unknown', async () => {
      for (const url of ['/', '/login', '/api/nope']) {
        const res = await get().app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toMatchObject({ error: 'not_found' });
      }
    });
  },
  { env: { PARLEY_WEB_DIR: join(dir, 'missing') } },
);
