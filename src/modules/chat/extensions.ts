import type { Database } from '../../db/database.js';
import type { ChatBot } from './repository.js';
import type { ChatChannel } from './request.js';

/** One request of the chat pipeline, as extensions see it. */
export interface ChatTurn {
  tenantId: string;
  /** The bot, with the tenant's state versions the admission read along with it. */
  bot: ChatBot;
  conversationId: string;
  /** True when this request opens the conversation (it is stored only after the reply). */
  isNewConversation: boolean;
  channel: ChatChannel;
  senderId: string | null;
  metadata: Record<string, unknown>;
  userMessage: string;
}

export interface PromptSection {
  name: string;
  text: string;
}

export interface ProcessedReply {
  reply: string;
  /** Structured results for the caller (e.g. booking actions); returned as `actions`. */
  actions: unknown[];
}

/**
 * How other modules plug into the chat pipeline without editing it (e.g. the events module:
 * bookable events as a prompt section, `[BOOK:…]` tags in the reply turned into actions).
 * Extensions run in the order of `ctx.chatExtensions`; each sees the reply the previous one
 * produced. Both hooks are optional.
 */
export interface ChatExtension {
  readonly name: string;
  /** Extra system-prompt sections, appended after the behavioural rules. */
  promptSections?(turn: ChatTurn, db: Database): Promise<PromptSection[]>;
  /** Post-processes the model's reply before it is stored and returned. */
  processReply?(turn: ChatTurn & { reply: string }, db: Database): Promise<ProcessedReply>;
}

export async function collectPromptSections(
  extensions: readonly ChatExtension[],
  turn: ChatTurn,
  db: Database,
): Promise<PromptSection[]> {
  const sections: PromptSection[] = [];
  for (const extension of extensions) {
    if (extension.promptSections) sections.push(...(await extension.promptSections(turn, db)));
  }
  return sections;
}

export async function processReply(
  extensions: readonly ChatExtension[],
  turn: ChatTurn,
  reply: string,
  db: Database,
): Promise<ProcessedReply> {
  let current: ProcessedReply = { reply, actions: [] };
  for (const extension of extensions) {
    if (!extension.processReply) continue;
    const next = await extension.processReply({ ...turn, reply: current.reply }, db);
    current = { reply: next.reply, actions: [...current.actions, ...next.actions] };
  }
  return current;
}
