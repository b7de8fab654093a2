import { expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { modelCatalog } from '../../src/modules/models/routes.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

interface Catalog {
  deployment: { provider: string; model: string };
  offline: boolean;
  providers: { provider: string; status: string; default_model: string; models: string[] }[];
}

describeApp('model catalog of an offline deployment', (get) => {
  const fetchCatalog = (headers: Record<string, string>) =>
    get().app.inject({ method: 'GET', url: '/api/models', headers });

  it('tells an editor that the offline answerer is in use and which providers are not configured', async () => {
    const tenant = await buildTenant(get().ctx);
    const editor = await tenant.user('editor');
    const res = await fetchCatalog(editor.headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Catalog>();
    expect(body.offline).toBe(true);
    expect(body.deployment.provider).toBe('offline');
    const byName = Object.fromEntries(body.providers.map((p) => [p.provider, p]));
    expect(byName.offline).toMatchObject({ status: 'ready', models: [body.deployment.model] });
    expect(byName.openai).toMatchObject({ status: 'not_configured', models: [] });
    expect(byName.anthropic).toMatchObject({ status: 'not_configured', models: [] });
  });

  it('needs a session (401), bot:edit (403 for a viewer) and takes no API key', async () => {
    const tenant = await buildTenant(get().ctx);
    expect((await fetchCatalog({})).statusCode).toBe(401);
    expect((await fetchCatalog(tenant.keyHeaders)).statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    const refused = await fetchCatalog(viewer.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).not.toHaveProperty('providers');
  });
});

describeApp(
  'model catalog of a deployment with OpenAI',
  (get) => {
    it('lists the configured provider with its models and never its key', async () => {
      const tenant = await buildTenant(get().ctx);
      const res = await get().app.inject({
        method: 'GET',
        url: '/api/models',
        headers: tenant.owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).not.toContain('sk-secret-test-key');
      const body = res.json<Catalog>();
      expect(body.offline).toBe(false);
      expect(body.deployment).toEqual({ provider: 'openai', model: 'gpt-4o' });
      const openai = body.providers.find((p) => p.provider === 'openai')!;
      expect(openai.status).toBe('ready');
      expect(openai.models[0]).toBe('gpt-4o');
      expect(openai.models).toContain('gpt-4o-mini');
    });
  },
  { env: { MODEL_PROVIDER: 'openai', MODEL_NAME: 'gpt-4o', OPENAI_API_KEY: 'sk-secret-test-key' } },
);

it('offers only the configured model of a custom OpenAI-compatible server', () => {
  const config = testConfig({
    MODEL_PROVIDER: 'openai',
    MODEL_NAME: 'llama3.1:8b',
    OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
  }).model;
  const catalog = modelCatalog(config);
  expect(catalog.providers.find((p) => p.provider === 'openai')).toEqual({
    provider: 'openai',
    status: 'ready',
    default_model: 'llama3.1:8b',
    models: ['llama3.1:8b'],
  });
  expect(JSON.stringify(catalog)).not.toContain('11434');
});
