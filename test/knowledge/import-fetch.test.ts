import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  RobotsCache,
  guardedGet,
  parseSitemap,
  type FetchLimits,
} from '../../src/modules/knowledge/imports/fetch.js';
import type * as Ssrf from '../../src/shared/ssrf.js';

// Loopback stands in for a public host here, so that the test server is reachable while every
// other internal address stays refused (the guard as it runs with private targets not allowed).
vi.mock('../../src/shared/ssrf.js', async (importOriginal) => {
  const original = await importOriginal<typeof Ssrf>();
  return {
    ...original,
    resolveAllowedAddresses: (host: string, allowPrivate: boolean) =>
      original.resolveAllowedAddresses(host, allowPrivate || host === '127.0.0.1' || host === 'localhost'),
  };
});

let server: http.Server;
let base: string;
let robots = 'User-agent: *\nDisallow: /privat\n';
let robotsStatus = 200;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') {
      res.writeHead(robotsStatus);
      return void res.end(robots);
    }
    if (path === '/zu-intern') {
      res.writeHead(302, { location: 'http://10.1.2.3/intern' });
      return void res.end();
    }
    if (path === '/zu-metadaten') {
      res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
      return void res.end();
    }
    if (path === '/kreis') {
      res.writeHead(302, { location: '/kreis' });
      return void res.end();
    }
    if (path === '/gross') return void res.end('x'.repeat(5000));
    if (path === '/gross-ohne-laenge') {
      res.write('x'.repeat(3000));
      return void res.end('x'.repeat(3000));
    }
    if (path === '/bombe') {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      return void res.end(zlib.gzipSync(Buffer.alloc(1_000_000)));
    }
    if (path === '/langsam') return void setTimeout(() => res.end('spät'), 1500);
    res.setHeader('content-type', 'text/plain');
    res.end(`Seite ${path}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const limits: FetchLimits = { timeoutMs: 1000, maxBytes: 4096, allowPrivate: false };
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code,
  );

describe('guardedGet', () => {
  it('fetches a page', async () => {
    const page = await guardedGet(`${base}/a`, limits);
    expect(page.body.toString()).toBe('Seite /a');
    expect(page.mediaType).toBe('text/plain');
  });

  it('refuses private, link-local and mapped addresses', async () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://192.168.0.10/',
      'http://[::ffff:10.0.0.1]/',
      'http://169.254.169.254/',
    ]) {
      expect(await codeOf(guardedGet(url, limits)), url).toBe('refused_address');
    }
  });

  it('checks every redirect target again', async () => {
    expect(await codeOf(guardedGet(`${base}/zu-intern`, limits))).toBe('refused_address');
    expect(await codeOf(guardedGet(`${base}/zu-metadaten`, limits))).toBe('refused_address');
    expect(await codeOf(guardedGet(`${base}/kreis`, limits))).toBe('too_many_redirects');
  });

  it('stops at the size limit, also for compressed bodies', async () => {
    expect(await codeOf(guardedGet(`${base}/gross`, limits))).toBe('too_large');
    expect(await codeOf(guardedGet(`${base}/gross-ohne-laenge`, limits))).toBe('too_large');
    expect(await codeOf(guardedGet(`${base}/bombe`, limits))).toBe('too_large');
  });

  it('gives up after the timeout', async () => {
    expect(await codeOf(guardedGet(`${base}/langsam`, { ...limits, timeoutMs: 200 }))).toBe('timeout');
  });
});

describe('RobotsCache', () => {
  it('honours Disallow rules', async () => {
    const cache = new RobotsCache(limits);
    await expect(cache.check(`${base}/offen`)).resolves.toBeUndefined();
    expect(await codeOf(cache.check(`${base}/privat/x`))).toBe('robots_disallowed');
  });

  it('allows everything on a 404 and nothing on a 5xx (RFC 9309)', async () => {
    robotsStatus = 404;
    robots = '';
    await expect(new RobotsCache(limits).check(`${base}/privat/x`)).resolves.toBeUndefined();
    robotsStatus = 503;
    expect(await codeOf(new RobotsCache(limits).check(`${base}/offen`))).toBe('robots_disallowed');
    robotsStatus = 200;
    robots = 'User-agent: *\nDisallow: /privat\n';
  });
});

describe('parseSitemap', () => {
  it('reads urlset and sitemapindex, with CDATA and entities', () => {
    expect(
      parseSitemap(
        '<urlset><url><loc> https://a.test/x?a=1&amp;b=2 </loc></url><url><loc><![CDATA[https://a.test/y]]></loc></url></urlset>',
      ),
    ).toEqual({ index: false, urls: ['https://a.test/x?a=1&b=2', 'https://a.test/y'] });
    expect(
      parseSitemap('<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>'),
    ).toEqual({
      index: true,
      urls: ['https://a.test/s1.xml'],
    });
  });

  it('refuses other documents', () => {
    expect(() => parseSitemap('<html><body>kein sitemap</body></html>')).toThrow(/keine XML-Sitemap/);
  });
});
