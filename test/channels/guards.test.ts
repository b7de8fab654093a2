import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_KINDS, CHANNELS, GUARD_NAMES } from '../../src/modules/channels/registry.js';
import {
  GUARD_REASONS,
  guardReasonText,
  runGuards,
  type ChannelGuard,
  type ChannelGuards,
  type GuardContext,
} from '../../src/modules/chat/pipeline/guards.js';
import type { InboundMessage } from '../../src/modules/chat/pipeline/types.js';
import { CHANNEL_GUARDS } from '../../src/context.js';
import { findMailboxById } from '../../src/modules/mailboxes/repository.js';
import { receiveMail, type InboundMail } from '../../src/modules/mailboxes/connectors/inbound.js';
import { emailLoopGuard } from '../../src/modules/mailboxes/connectors/loop-guard.js';
import { setOptOut } from '../../src/modules/messaging/repository.js';
import { optOutGuard } from '../../src/modules/messaging/guards.js';
import { widgetBudgetGuard } from '../../src/modules/widget/limits.js';
import { MAIL_SKIP_REASONS } from '../../src/modules/email/reasons.js';
import { EngineRefusal } from '../../src/shared/refusal.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, POSTMARK_MAILBOX } from '../email/mailbox-setup.js';
import { startFakeProviders, type FakeProviders } from '../messaging/fake-providers.js';
import { ACCESS_TOKEN, WHATSAPP_CONNECTION, addConnection } from '../messaging/setup.js';

function inbound(channel: string, facts: InboundMessage['facts'] = {}): InboundMessage {
  return {
    tenantId: crypto.randomUUID(),
    botId: crypto.randomUUID(),
    input: {
      message: 'Hallo',
      senderId: 'kunde',
      channel,
      conversationId: null,
      metadata: {},
    } as InboundMessage['input'],
    idempotencyKey: null,
    facts,
  };
}

/** A guard that records its calls and answers as told. */
function fakeGuard(name: ChannelGuard['name'], refuse: boolean, calls: string[]): ChannelGuard {
  return {
    name,
    check: () => {
      calls.push(name);
      return Promise.resolve(
        refuse
          ? { pass: false, code: 'budget_exhausted', reason: 'widget_budget_exhausted', retryAfterSeconds: 7 }
          : { pass: true },
      );
    },
  };
}

describe('channel guards: one interface, run in one place', () => {
  const base = { db: undefined, config: undefined } as unknown as GuardContext;
  const withGuards = (guards: Partial<ChannelGuards>) => ({
    ...base,
    guards: { ...CHANNEL_GUARDS, ...guards },
  });

  it('the registry names every guard of a channel, and every named guard is composed', () => {
    for (const kind of CHANNEL_KINDS)
      for (const name of CHANNELS[kind].guards) expect(GUARD_NAMES).toContain(name);
    expect(Object.keys(CHANNEL_GUARDS).sort()).toEqual([...GUARD_NAMES].sort());
    for (const name of GUARD_NAMES) expect(CHANNEL_GUARDS[name].name).toBe(name);
    expect(CHANNELS.email.guards).toEqual(['email_loop']);
    expect(CHANNELS.widget.guards).toEqual(['widget_budget']);
    expect(CHANNELS.whatsapp.guards).toEqual(['messaging_opt_out']);
    expect(CHANNELS.api.guards).toEqual([]);
  });

  it('runs only the guards of the message’s channel; a refusal is an EngineRefusal with code, guard and reason', async () => {
    const calls: string[] = [];
    const ctx = withGuards({
      widget_budget: fakeGuard('widget_budget', true, calls),
      email_loop: fakeGuard('email_loop', false, calls),
      messaging_opt_out: fakeGuard('messaging_opt_out', false, calls),
    });
    await expect(runGuards(ctx, inbound('api'))).resolves.toBeUndefined();
    await expect(runGuards(ctx, inbound('email'))).resolves.toBeUndefined();
    expect(calls).toEqual(['email_loop']);
    const refusal = await runGuards(ctx, inbound('widget')).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(EngineRefusal);
    expect(refusal).toMatchObject({
      reason: 'budget_exhausted',
      guard: { guard: 'widget_budget', reason: 'widget_budget_exhausted' },
      retryAfterSeconds: 7,
    });
    expect(calls).toEqual(['email_loop', 'widget_budget']);
  });

  it('a guard without its channel facts passes (a chat API call naming the e-mail channel)', async () => {
    const ctx = { ...base, guards: CHANNEL_GUARDS };
    await expect(runGuards(ctx, inbound('email'))).resolves.toBeUndefined();
    await expect(runGuards(ctx, inbound('whatsapp'))).resolves.toBeUndefined();
    await expect(runGuards(ctx, inbound('widget'))).resolves.toBeUndefined();
  });

  it('shows every reason one way: "nicht beantwortet, weil …" / "not answered because …"', () => {
    expect(guardReasonText('hourly_cap')).toBe(
      'nicht beantwortet, weil der Bot diesem Absender in der letzten Stunde schon zu oft geantwortet hat',
    );
    expect(guardReasonText('opted_out', 'en')).toBe(
      'not answered because the customer opted out of messages',
    );
    for (const reason of Object.keys(GUARD_REASONS)) {
      expect(guardReasonText(reason, 'de')).toMatch(/^nicht beantwortet, weil /);
      expect(guardReasonText(reason, 'en-GB')).toMatch(/^not answered because /);
    }
    expect(guardReasonText('something_else')).toBeNull();
    // The loop guard's reasons are the e-mail module's skip reasons too.
    for (const reason of ['hourly_cap', 'daily_cap', 'duplicate_body'])
      expect(MAIL_SKIP_REASONS).toHaveProperty(reason);
  });
});

let fake: FakeProviders;
beforeAll(async () => {
  fake = await startFakeProviders({ meta: ACCESS_TOKEN, twilio: { sid: '', token: '' } });
});
afterAll(() => fake?.close());

describeApp('channel guards on the database: one per channel', (get) => {
  it('widget: the daily budget counts each passing message and refuses the one over it until midnight', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const turn = { ...inbound('widget', { widget: { dailyBudget: 2 } }), tenantId: tenant.id, botId: bot.id };
    expect(await widgetBudgetGuard.check(ctx, turn)).toEqual({ pass: true });
    expect(await widgetBudgetGuard.check(ctx, turn)).toEqual({ pass: true });
    const over = await widgetBudgetGuard.check(ctx, turn);
    expect(over).toMatchObject({ pass: false, code: 'budget_exhausted', reason: 'widget_budget_exhausted' });
    expect(over.pass === false && over.retryAfterSeconds).toBeGreaterThan(0);
    expect(over.pass === false && over.retryAfterSeconds).toBeLessThanOrEqual(86_400);
  });

  it('e-mail: the loop guard refuses past the hourly cap; the mail is stored skipped with the guard’s reason', async () => {
    const { ctx, db, app } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const box = (await findMailboxById(db, await addMailbox(app, tenant, bot.id, POSTMARK_MAILBOX)))!;
    const mail = (n: number): InboundMail => ({
      messageId: `<guard-${n}-${Date.now()}@kunde.example>`,
      from: 'schleife@kunde.example',
      subject: `Frage ${n}`,
      inReplyTo: null,
      references: [],
      text: `Frage Nummer ${n}`,
      headers: {},
      contentType: 'text/plain',
    });
    const cap = ctx.config.email.replyCapHour;
    ctx.config.email.replyCapHour = 1;
    try {
      expect((await receiveMail(ctx, box, mail(1))).status).toBe('answered');
      const second = await receiveMail(ctx, box, mail(2));
      expect(second).toMatchObject({ status: 'skipped', reason: 'hourly_cap' });
      const direct = await emailLoopGuard.check(ctx, {
        ...inbound('email'),
        facts: {
          email: {
            mailboxId: box.id,
            inboundId: crypto.randomUUID(),
            sender: 'schleife@kunde.example',
            strippedText: 'neu',
          },
        },
      });
      expect(direct).toEqual({ pass: false, code: 'loop_guarded', reason: 'hourly_cap' });
      const [stored] = await db.query<{ status: string; skip_reason: string }>(
        `SELECT status, skip_reason FROM email_inbound WHERE id = $1`,
        [second.inboundId],
      );
      expect(stored).toEqual({ status: 'skipped', skip_reason: 'hourly_cap' });
    } finally {
      ctx.config.email.replyCapHour = cap;
    }
  });

  it('messaging: the opt-out guard refuses a number that opted out, and only that one', async () => {
    const { ctx, app } = get();
    ctx.config.messaging.graphBaseUrl = fake.graphBase;
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const { id: connectionId } = await addConnection(app, tenant, bot.id, WHATSAPP_CONNECTION);
    const turn = (from: string) => inbound('whatsapp', { messaging: { connectionId, from } });
    await setOptOut(ctx.db, connectionId, '+4917011111111', true);
    expect(await optOutGuard.check(ctx, turn('+4917011111111'))).toEqual({
      pass: false,
      code: 'opted_out',
      reason: 'opted_out',
    });
    expect(await optOutGuard.check(ctx, turn('+4917022222222'))).toEqual({ pass: true });
  });
});
