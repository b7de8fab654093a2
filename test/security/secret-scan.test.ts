import { expect, it } from 'vitest';
import { findSecrets } from '../../scripts/scan-test-logs.mjs';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

/**
 * Representative flows at LOG_LEVEL=debug: login, key generation, chat and /v1 with the key
 * (also in the query string), webhook secrets, the internal key, a model provider that fails
 * with its API key configured. No secret may appear in any log line. (`npm test` also scans
 * the debug logs of the whole suite, see scripts/run-tests.mjs.)
 */
const LOG: string[] = [];
const PROVIDER_KEY = 'sk-test-provider-secret-0123456789abcdef';
const INTERNAL_KEY = 'internal-secret-for-scan-0123456789';

describeApp(
  'secret scan of debug logs',
  (get) => {
    it('no API key, session token, password, webhook secret, internal or provider key is logged', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const bot = await tenant.bot();
      const secrets = [tenant.apiKey, tenant.owner.password, tenant.owner.token, PROVIDER_KEY, INTERNAL_KEY];

      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: tenant.owner.email, password: tenant.owner.password },
      });
      expect(login.statusCode).toBe(200);
      secrets.push(login.json().token);
      await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: tenant.owner.email, password: `${tenant.owner.password}-wrong` },
      });

      const key = await t.app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: tenant.owner.headers,
        payload: {},
      });
      expect(key.statusCode).toBe(201);
      const apiKey: string = key.json().key;
      secrets.push(apiKey);

      await t.app.inject({ method: 'GET', url: '/v1/bots', headers: { authorization: `Bearer ${apiKey}` } });
      await t.app.inject({ method: 'GET', url: `/v1/bots?api_key=${apiKey}` });
      await t.app.inject({ method: 'GET', url: `/api/me?token=${login.json().token}` });
      // The model provider is unreachable: the chat answers 503 and logs why, never the provider key.
      const chat = await t.app.inject({
        method: 'POST',
        url: `/api/bot-chat/${bot.id}/chat?x-api-key=${apiKey}`,
        headers: { 'x-api-key': apiKey },
        payload: { message: 'Hallo' },
      });
      expect(chat.statusCode).toBe(503);

      const webhook = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: tenant.owner.headers,
        payload: { url: 'https://93.184.216.34/hook', event_types: ['conversation.ended'] },
      });
      expect(webhook.statusCode).toBe(201);
      secrets.push(webhook.json().secret);
      const rotated = await t.app.inject({
        method: 'POST',
        url: `/api/webhooks/${webhook.json().webhook.id}/rotate-secret`,
        headers: tenant.owner.headers,
      });
      secrets.push(rotated.json().secret);

      await t.app.inject({
        method: 'GET',
        url: `/api/internal/sandbox-reminders?x-internal-api-key=${INTERNAL_KEY}`,
      });
      await t.app.inject({
        method: 'GET',
        url: '/api/internal/sandbox-reminders',
        headers: { 'x-internal-api-key': INTERNAL_KEY },
      });

      const log = LOG.join('');
      expect(t.ctx.config.logLevel).toBe('debug');
      expect(log).toContain('incoming request');
      expect(log).toContain('model unavailable');
      expect(findSecrets(log, secrets)).toEqual([]);
    });
  },
  {
    env: {
      LOG_LEVEL: 'debug',
      INTERNAL_API_KEY: INTERNAL_KEY,
      MODEL_PROVIDER: 'openai',
      OPENAI_API_KEY: PROVIDER_KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      MODEL_TIMEOUT_MS: '2000',
    },
    logStream: { write: (line) => LOG.push(line) },
  },
);
