import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';

// A widget build as scripts/build-widget.mjs writes it (marked compressed copies, so the test sees
// which file was sent).
const dir = mkdtempSync(join(tmpdir(), 'parley-widget-'));
const loader = `(()=>{${'/*loader*/'.repeat(200)}})();`;
const panel = `export function mount(){${'/*panel*/'.repeat(200)}}`;
for (const [name, code] of <[string, string][]>[
  ['v1.js', loader],
  ['panel-Ab12_cd-34.js', panel],
]) {
  writeFileSync(join(dir, name), code);
  writeFileSync(join(dir, `${name}.gz`), gzipSync(`${code}//gz`));
  writeFileSync(join(dir, `${name}.br`), brotliCompressSync(`${code}//br`));
}
writeFileSync(join(dir, 'manifest.json'), '{"loader":"v1.js"}');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeApp(
  'website widget served at /widget/',
  (get) => {
    it('serves the loader precompressed, cached briefly, readable from other origins', async () => {
      const res = await get().app.inject({
        method: 'GET',
        url: '/widget/v1.js',
        headers: { 'accept-encoding': 'gzip, br', origin: 'https://shop.example' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toContain('javascript');
      expect(res.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=3600');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('serves gzip to a browser without brotli and the plain file otherwise', async () => {
      const gz = await get().app.inject({
        method: 'GET',
        url: '/widget/v1.js',
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(gz.headers['content-encoding']).toBe('gzip');
      const plain = await get().app.inject({ method: 'GET', url: '/widget/v1.js' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(loader);
    });

    it('serves the hashed panel chunk as immutable', async () => {
      const res = await get().app.inject({ method: 'GET', url: '/widget/panel-Ab12_cd-34.js' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(panel);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it('answers JSON 404 for other files and unknown paths, never the dashboard page', async () => {
      for (const url of ['/widget/manifest.json', '/widget/v2.js', '/widget/', '/widget/../package.json']) {
        const res = await get().app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.body).not.toContain('"name": "parley"');
      }
    });
  },
  { env: { PARLEY_WIDGET_DIR: dir } },
);

describeApp(
  'without a widget build',
  (get) => {
    it('answers JSON 404 at /widget/v1.js', async () => {
      const res = await get().app.inject({ method: 'GET', url: '/widget/v1.js' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    });
  },
  { env: { PARLEY_WIDGET_DIR: join(dir, 'missing') } },
);
