import { expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { memoryCoordination } from '../../src/coordination/index.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant } from '../helpers/factories.js';

describeEachBackend('chat request log line', (get) => {
  /** An app on the test database whose log lines (info and up) are kept in `lines`. */
  const loggedApp = async () => {
    const lines: string[] = [];
    const ctx = await createContext(testConfig({ LOG_LEVEL: 'info' }), {
      db: get().db,
      coordination: memoryCoordination(),
    });
    const app = await buildApp(ctx, { logStream: { write: (line) => lines.push(line) } });
    return { lines, ctx, app };
  };
  const completedLines = (lines: string[], tenantId: string) =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request completed' && l.tenant_id === tenantId);

  it('carries tenant, bot, outcome, the latency of each stage and the tokens, never the message', async () => {
    const { lines, ctx, app } = await loggedApp();
    try {
      const tenant = await buildTenant(ctx);
      const bot = await tenant.bot();
      const send = (botId: string) =>
        app.inject({
          method: 'POST',
          url: `/api/bot-chat/${botId}/chat`,
          headers: { ...tenant.keyHeaders, 'content-type': 'application/json' },
          payload: { message: 'Geheime Frage zu Öffnungszeiten' },
        });
      expect((await send(bot.id)).statusCode).toBe(200);
      expect((await send('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
      const completed = completedLines(lines, tenant.id);
      expect(completed).toHaveLength(2);
      const [ok, missing] = completed;
      expect(ok).toMatchObject({ bot_id: bot.id, outcome: 'ok' });
      expect(Object.keys(ok!.stages_ms as object)).toEqual(
        expect.arrayContaining(['auth', 'admission', 'knowledge', 'prompt', 'model', 'reply', 'store']),
      );
      expect(ok!.tokens_in).toBeGreaterThan(0);
      expect(ok!.tokens_out).toBeGreaterThan(0);
      expect(ok!.stages_ms).toMatchObject({ admission: expect.any(Number), model: expect.any(Number) });
      expect(ok).toMatchObject({ model_provider: 'offline', model: expect.any(String) });
      expect(missing).toMatchObject({ outcome: 'bot_not_found' });
      expect(missing).not.toHaveProperty('tokens_in');
      expect(lines.join('\n')).not.toContain('Geheime Frage');
    } finally {
      await app.close();
      await ctx.coordination.close();
    }
  });

  it('carries the same fields for a streamed chat and for the dashboard test chat', async () => {
    const { lines, ctx, app } = await loggedApp();
    try {
      const tenant = await buildTenant(ctx);
      const bot = await tenant.bot();
      const streamed = await app.inject({
        method: 'POST',
        url: `/api/bot-chat/${bot.id}/chat`,
        headers: { ...tenant.keyHeaders, 'content-type': 'application/json', accept: 'text/event-stream' },
        payload: { message: 'Gestreamte Geheimfrage' },
      });
      expect(streamed.statusCode).toBe(200);
      const tested = await app.inject({
        method: 'POST',
        url: `/api/bots/${bot.id}/test-chat`,
        headers: { ...tenant.owner.headers, 'content-type': 'application/json' },
        payload: { message: 'Testchat Geheimfrage' },
      });
      expect(tested.statusCode).toBe(200);
      const completed = completedLines(lines, tenant.id);
      expect(completed).toHaveLength(2);
      for (const line of completed) {
        expect(line).toMatchObject({ bot_id: bot.id, outcome: 'ok', model_provider: 'offline' });
        expect(Object.keys(line.stages_ms as object)).toEqual(
          expect.arrayContaining(['auth', 'admission', 'knowledge', 'prompt', 'model', 'reply', 'store']),
        );
        expect(line.tokens_in).toBeGreaterThan(0);
        expect(line.tokens_out).toBeGreaterThan(0);
      }
      expect(lines.join('\n')).not.toContain('Geheimfrage');
    } finally {
      await app.close();
      await ctx.coordination.close();
    }
  });
});
