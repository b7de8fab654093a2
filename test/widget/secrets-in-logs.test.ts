import { expect, it } from 'vitest';
import { findSecrets } from '../../scripts/scan-test-logs.mjs';
import { signIdentityToken } from '../../src/modules/widget/tokens.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { send, startSession, widgetBot } from './helpers.js';

const LOG: string[] = [];

describeApp(
  'widget secrets in debug logs',
  (get) => {
    it('no identity secret, identity token or visitor token is logged, nor shown again after creation', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const { botId, publishableKey } = await widgetBot(t, tenant);
      const created = await t.app.inject({
        method: 'POST',
        url: `/api/bots/${botId}/widget/identity-secret`,
        headers: tenant.owner.headers,
      });
      const secret = created.json().identity_secret as string;
      const identity = signIdentityToken(secret, {
        visitor_id: 'kunde-7',
        exp: Math.floor(Date.now() / 1000) + 600,
      });
      const session = await startSession(t, publishableKey, { identity_token: identity });
      await send(t, session, { text: 'Hallo' });
      await t.app.inject({ method: 'POST', url: '/v1/widget/sessions/refresh', headers: session.headers });
      await t.app.inject({ method: 'GET', url: '/v1/widget/conversation', headers: session.headers });
      const later = await t.app.inject({
        method: 'GET',
        url: `/api/bots/${botId}/widget`,
        headers: tenant.owner.headers,
      });
      expect(later.body).not.toContain(secret);
      const exported = await t.app.inject({
        method: 'GET',
        url: `/api/bots/${botId}/widget/visitors/kunde-7/export`,
        headers: tenant.owner.headers,
      });
      expect(exported.statusCode).toBe(200);
      expect(exported.body).not.toContain(secret);
      const log = LOG.join('');
      expect(log.length).toBeGreaterThan(0);
      expect(findSecrets(log, [secret, identity, session.token])).toEqual([]);
    });
  },
  { env: { LOG_LEVEL: 'debug' }, logStream: { write: (line) => LOG.push(line) } },
);
