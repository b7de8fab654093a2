import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/log-redaction.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';

describe('redactUrl', () => {
  it('replaces the values of credential-like query parameters and keeps the rest as sent', () => {
    expect(redactUrl('/v1/bots?api_key=svc_abc&limit=5')).toBe('/v1/bots?api_key=[redacted]&limit=5');
    expect(redactUrl('/x?X-Internal-API-Key=s3cr3t&x-api-key=k&token=t&key=k&secret=s&password=p')).toBe(
      '/x?X-Internal-API-Key=[redacted]&x-api-key=[redacted]&token=[redacted]&key=[redacted]&secret=[redacted]&password=[redacted]',
    );
    expect(redactUrl('/x?access%5Ftoken=abc&q=hello%20world')).toBe(
      '/x?access%5Ftoken=[redacted]&q=hello%20world',
    );
    expect(redactUrl('/x?q=svc_0123456789abcdef0123456789')).toBe('/x?q=[redacted]');
    expect(redactUrl('/api/pst_0123456789abcdef/x')).toBe('/api/[redacted]/x');
    expect(redactUrl('/plain/path')).toBe('/plain/path');
  });
});

describeApp(
  'credentials in query strings never reach the request log',
  (get) => {
    it('logs the URL with the credential values redacted', async () => {
      const t = get();
      const lines = LOG;
      const tenant = await buildTenant(t.ctx);
      const urls = [
        `/v1/bots?api_key=${tenant.apiKey}&limit=5`,
        `/v1/bots?x-api-key=${tenant.apiKey}`,
        `/api/internal/sandbox-reminders?x-internal-api-key=internal-secret-value-123`,
        `/api/me?token=${tenant.owner.token}`,
        `/api/me?password=${tenant.owner.password}`,
        `/api/bots?secret=whsec_c2VjcmV0c2VjcmV0c2VjcmV0`,
      ];
      for (const url of urls) await t.app.inject({ method: 'GET', url });
      const log = lines.join('');
      expect(log).toContain('api_key=[redacted]&limit=5');
      expect(log).toContain('x-internal-api-key=[redacted]');
      for (const secret of [
        tenant.apiKey,
        tenant.owner.token,
        tenant.owner.password,
        'internal-secret-value-123',
        'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
      ]) {
        expect(log).not.toContain(secret);
      }
    });
  },
  {
    env: { LOG_LEVEL: 'debug', INTERNAL_API_KEY: 'internal-secret-value-123' },
    logStream: { write: (l) => LOG.push(l) },
  },
);
const LOG: string[] = [];

describeApp('security headers', (get) => {
  let tenant: TenantFixture;

  it('every response carries nosniff, frame and referrer policies and a CSP for the dashboard', async () => {
    const t = get();
    tenant = await buildTenant(t.ctx);
    for (const url of ['/health', '/api/me', '/no-such-route', '/openapi.json']) {
      const res = await t.app.inject({ method: 'GET', url, headers: tenant.owner.headers });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("img-src 'self' data:");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('upgrade-insecure-requests');
    }
  });

  it('responses carrying a token, key or secret are not stored: login, key generation, webhook create and rotate', async () => {
    const t = get();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: tenant.owner.email, password: tenant.owner.password },
    });
    expect(login.statusCode).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');

    const key = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: tenant.owner.headers,
      payload: {},
    });
    expect(key.statusCode).toBe(201);
    expect(key.headers['cache-control']).toBe('no-store');

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url: 'https://93.184.216.34/hook', event_types: ['conversation.ended'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${created.json().webhook.id}/rotate-secret`,
      headers: tenant.owner.headers,
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');

    const failed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'x@y.z', password: 'nope-nope' },
    });
    expect(failed.headers['cache-control']).toBe('no-store');
  });

  it('/docs still works: its HTML loads, every script and stylesheet it names is served, no inline script', async () => {
    const t = get();
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    const html = page.statusCode === 302 || page.statusCode === 301 ? undefined : page.body;
    const res = html ? page : await t.app.inject({ method: 'GET', url: String(page.headers.location) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const body = res.body;
    const scripts = [...body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attributes of scripts) expect(attributes).toMatch(/src="/);
    const assets = [...body.matchAll(/(?:src|href)="([^"]+\.(?:js|css|png))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      const url = asset.startsWith('/') ? asset : `/docs/${asset.replace(/^\.\//, '')}`;
      const served = await t.app.inject({ method: 'GET', url });
      expect(served.statusCode, url).toBe(200);
    }
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(initializer.statusCode).toBe(200);
  });
});
