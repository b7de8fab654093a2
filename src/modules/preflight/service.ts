import type { Queryable } from '../../db/database.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { findBot, setGeneratedPrompt } from '../bots/index.js';
import {
  listBlocks,
  listSteps,
  toFlowBlock,
  toFlowStep,
  analysePreflight,
  type PreflightAnalysis,
} from '../flow/index.js';
import { getKbOnboarding } from '../knowledge/index.js';
import { listBotConnections } from '../messaging/index.js';
import { WHATSAPP_CONNECTION_KINDS, messagingWarnings, type MessagingWarning } from './messaging-fit.js';
import { buildPromptInjection, type PromptInjection } from './prompt-injection.js';

export interface KbOnboarding {
  type: string;
  message: string;
  details: unknown;
}

/** The full pre-flight answer (GET /api/bots/:id/preflight). */
export interface PreflightResult extends PreflightAnalysis {
  kbOnboarding: KbOnboarding | null;
  promptInjection: PromptInjection;
  /** Blocks whose choices do not fit WhatsApp, when the bot has an active WhatsApp connection. */
  messagingWarnings: MessagingWarning[];
}

/** Upper bound for a stored generated prompt, in characters. */
export const MAX_INJECTED_PROMPT_CHARS = 100_000;

/**
 * Checks a bot's blocks and flow steps. Reads only; callers that activate a bot use
 * `canActivate`. Throws 404 when the bot is not the tenant's.
 */
export async function runPreflight(db: Queryable, tenantId: string, botId: string): Promise<PreflightResult> {
  const bot = await findBot(db, tenantId, botId);
  if (!bot) throw notFound('Bot');
  const [blockRows, stepRows, kbOnboarding, connections] = await Promise.all([
    listBlocks(db, tenantId, botId),
    listSteps(db, tenantId, botId),
    getKbOnboarding(db, tenantId),
    listBotConnections(db, tenantId, botId),
  ]);
  const onWhatsApp = connections.some(
    (c) => c.is_active && (WHATSAPP_CONNECTION_KINDS as readonly string[]).includes(c.kind),
  );
  const blocks = blockRows.map(toFlowBlock);
  const analysis = analysePreflight(blocks, stepRows.map(toFlowStep));
  return {
    ...analysis,
    kbOnboarding,
    promptInjection: buildPromptInjection(blocks, bot.system_prompt),
    messagingWarnings: onWhatsApp ? messagingWarnings(blocks) : [],
  };
}

/**
 * The check before a bot is switched on (the bots module's activation check): refused (409
 * bot_activation_blocked) while any block of the flow is red.
 */
export async function checkActivation(db: Queryable, tenantId: string, botId: string): Promise<void> {
  const preflight = await runPreflight(db, tenantId, botId);
  if (preflight.canActivate) return;
  const redBlocks = preflight.blocks.filter((block) => block.status === 'red');
  throw conflict(
    `The bot cannot be activated: ${redBlocks.length} block(s) of its flow have no routing (pre-flight red)`,
    { code: 'bot_activation_blocked', field: 'is_active', red_blocks: redBlocks },
  );
}

/**
 * Stores the generated prompt the chat uses instead of system_prompt. An empty or blank text
 * clears it, so the chat falls back to the editable prompt.
 */
export async function injectPrompt(
  db: Queryable,
  tenantId: string,
  botId: string,
  injectedPrompt: string,
): Promise<{ botId: string; stored: boolean; length: number; updatedAt: Date }> {
  if (!isUuid(botId)) throw notFound('Bot');
  if (injectedPrompt.length > MAX_INJECTED_PROMPT_CHARS) {
    throw badRequest(
      `Field 'injectedPrompt' must not be longer than ${MAX_INJECTED_PROMPT_CHARS} characters`,
      { code: 'field_too_long', field: 'injectedPrompt', limit: MAX_INJECTED_PROMPT_CHARS },
    );
  }
  const value = injectedPrompt.trim() === '' ? null : injectedPrompt;
  const row = await setGeneratedPrompt(db, tenantId, botId, value);
  if (!row) throw notFound('Bot');
  return { botId: row.id, stored: value !== null, length: value?.length ?? 0, updatedAt: row.updated_at };
}
