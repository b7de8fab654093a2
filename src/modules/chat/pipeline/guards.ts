/**
 * Channel guards: the checks a channel adds to admission, behind one interface. The registry's
 * descriptor names each channel's guards (channels/registry.ts `guards`); the modules that own
 * the facts implement them (e-mail: the loop guard and its caps; widget: the bot's daily budget;
 * messaging: the customer's opt-out), composed by name in src/context.ts (`ctx.guards`). They
 * run in one place — admission, before the idempotency claim and the admission statement, in
 * the descriptor's order — and a refusal is one shape: an EngineRefusal with the guard's code
 * (shared/refusal.ts) and its name and reason word, which adapters store where they store a
 * turn's outcome and the dashboard shows as "nicht beantwortet, weil …" / "not answered
 * because …" (guardReasonText).
 */
import type { Config } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import { EngineRefusal, type RefusalReason } from '../../../shared/refusal.js';
import { channelOf, type GuardName } from '../../channels/registry.js';
import type { InboundMessage } from './types.js';

/** The codes a guard refuses with (a subset of the engine's refusal codes). */
export type GuardCode = Extract<RefusalReason, 'budget_exhausted' | 'loop_guarded' | 'opted_out'>;

export type GuardVerdict =
  | { pass: true }
  | {
      pass: false;
      code: GuardCode;
      /** The guard's own reason word (stored, and shown through guardReasonText). */
      reason: string;
      /** When trying again makes sense, if the guard knows. */
      retryAfterSeconds?: number;
    };

export const PASS: GuardVerdict = { pass: true };

/**
 * One guard of a channel. `check` reads what the adapter told of the turn (`inbound.facts`);
 * without its facts (a turn the guard does not concern, e.g. a chat API call naming the e-mail
 * channel) it passes. Counting guards (a budget) count in `check`: a turn that passes is counted.
 */
export interface ChannelGuard {
  readonly name: GuardName;
  check(ctx: GuardContext, inbound: InboundMessage): Promise<GuardVerdict>;
}

/** What a guard may read: the database and the configuration (not the context's type, which names the guards). */
export interface GuardContext {
  db: Database;
  config: Config;
}

export type ChannelGuards = Readonly<Record<GuardName, ChannelGuard>>;

/** Runs the guards the inbound message's channel names, in order; the first refusal is thrown. */
export async function runGuards(
  ctx: GuardContext & { guards: ChannelGuards },
  inbound: InboundMessage,
): Promise<void> {
  for (const name of channelOf(inbound.input.channel).guards) {
    const guard = ctx.guards[name];
    const verdict = await guard.check(ctx, inbound);
    if (verdict.pass) continue;
    throw new EngineRefusal(verdict.code, {
      guard: { guard: guard.name, reason: verdict.reason },
      ...(verdict.retryAfterSeconds !== undefined ? { retryAfterSeconds: verdict.retryAfterSeconds } : {}),
    });
  }
}

/**
 * The words of every guard reason: "not answered because …". The e-mail loop guard's reasons
 * are also in the e-mail module's skip reasons (email/reasons.ts, same words).
 */
export const GUARD_REASONS = {
  hourly_cap: {
    de: 'der Bot diesem Absender in der letzten Stunde schon zu oft geantwortet hat',
    en: 'the bot already answered this sender too often in the last hour',
  },
  daily_cap: {
    de: 'der Bot diesem Absender heute schon zu oft geantwortet hat',
    en: 'the bot already answered this sender too often today',
  },
  duplicate_body: {
    de: 'derselbe Text vor Kurzem schon beantwortet wurde',
    en: 'the same text was answered a short while ago',
  },
  widget_budget_exhausted: {
    de: 'das Tageslimit an Nachrichten des Chats erreicht ist',
    en: 'the chat’s daily message budget is used up',
  },
  opted_out: {
    de: 'der Kunde den Nachrichten widersprochen hat',
    en: 'the customer opted out of messages',
  },
} as const satisfies Record<string, { de: string; en: string }>;

/** "nicht beantwortet, weil …" / "not answered because …" for a guard's reason word; null for another. */
export function guardReasonText(reason: string, language: string = 'de'): string | null {
  if (!Object.hasOwn(GUARD_REASONS, reason)) return null;
  const words = GUARD_REASONS[reason as keyof typeof GUARD_REASONS];
  return language.toLowerCase().startsWith('en')
    ? `not answered because ${words.en}`
    : `nicht beantwortet, weil ${words.de}`;
}
