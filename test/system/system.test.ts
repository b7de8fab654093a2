import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig, testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { describeApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';

describeApp('health, readiness, metrics', (get) => {
  it('answers health and readiness with the database kind', async () => {
    expect((await get().app.inject({ url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await get().app.inject({ url: '/ready' })).json()).toEqual({
      status: 'ready',
      database: get().backend,
    });
  });

  it('exposes Prometheus metrics including request durations', async () => {
    await get().app.inject({ url: '/health' });
    const res = await get().app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/parley_http_request_duration_seconds_count\{[^}]*route="\/health"/);
    expect(res.body).toContain('parley_process_resident_memory_bytes');
  });

  it('echoes a safe request id and makes one up otherwise', async () => {
    const given = await get().app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const unsafe = await get().app.inject({ url: '/health', headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with the JSON error shape', async () => {
    const res = await get().app.inject({ url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers a body that is not JSON with 400, not 500', async () => {
    const res = await get().app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('validation_error');
  });
});

describeEachBackend('logging', (get) => {
  it('never writes API keys, session tokens or passwords to the log', async () => {
    const lines: string[] = [];
    const ctx = await createContext(testConfig({ LOG_LEVEL: 'trace' }), {
      db: get().db,
      coordination: memoryCoordination(),
    });
    const app = await buildApp(ctx, { logStream: { write: (line) => lines.push(line) } });
    try {
      const tenant = await buildTenant(ctx);
      await app.inject({ url: '/api/me', headers: tenant.owner.headers });
      await app.inject({
        url: '/api/me',
        headers: { 'x-api-key': tenant.apiKey, authorization: `Bearer ${tenant.apiKey}` },
      });
      await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: tenant.owner.email, password: tenant.owner.password },
      });
      const log = lines.join('\n');
      expect(lines.length).toBeGreaterThan(3);
      for (const secret of [tenant.apiKey, tenant.owner.token, tenant.owner.password]) {
        expect(log).not.toContain(secret);
      }
    } finally {
      await app.close();
    }
  });
});

describe('configuration', () => {
  it('has working embedded defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe('./data');
    expect(config.auth.bcryptCost).toBe(10);
    expect(config.knowledge.minScore).toBe(0.4);
    expect(config.model.provider).toBe('offline');
    expect(config.shutdownGraceMs).toBe(10_000);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres:/],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL must be a URL/],
    [{ MODEL_PROVIDER: 'gpt' }, /MODEL_PROVIDER must be one of offline, openai, anthropic/],
    [{ KNOWLEDGE_MIN_SCORE: '2' }, /KNOWLEDGE_MIN_SCORE must be a number between 0 and 1/],
    [{ PROMPT_SECURITY_LAYER: 'maybe' }, /PROMPT_SECURITY_LAYER must be true or false/],
  ])('refuses %o with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
