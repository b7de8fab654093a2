import type { Database, Queryable } from '../../db/database.js';
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
  /** Structured results for the caller known without writing; returned as `actions`. */
  actions: unknown[];
  /**
   * Reply actions that write (e.g. bookings from tags): run inside the transaction that stores
   * the exchange, so a reply that is not stored (handed over, failed) leaves nothing behind.
   * Their results follow `actions`.
   */
  apply?: (tx: Queryable) => Promise<unknown[]>;
}

/** A reply decided without the model: its text, the name the response gives as `model`, actions. */
export interface DecidedReply {
  text: string;
  model: string;
  actions: unknown[];
}

/** The replies of all extensions together: the rewritten text and every action, in order. */
export interface CollectedReply {
  reply: string;
  actions: unknown[];
  apply: ((tx: Queryable) => Promise<unknown[]>)[];
}

/**
 * How other modules plug into the conversation engine without editing it (e.g. the events
 * module: bookable events as a prompt section, `[BOOK:…]` tags in the reply turned into
 * bookings). Extensions run in the order of `ctx.chatExtensions`; each sees the reply the
 * previous one produced. Every hook is optional.
 */
export interface ChatExtension {
  readonly name: string;
  /**
   * Before the model (the flow engine's insertion point): answers the turn itself — a fixed
   * text or an interactive block — or returns null to let the model answer. The first
   * extension that decides wins; context and model are then skipped, the rest runs as usual.
   */
  decide?(turn: ChatTurn, db: Database): Promise<DecidedReply | null>;
  /** Extra system-prompt sections, appended after the behavioural rules. */
  promptSections?(turn: ChatTurn, db: Database): Promise<PromptSection[]>;
  /**
   * Post-processes the reply (the model's or a decided one) before it is stored and returned:
   * rewrites its text, reports actions, and hands writes to `apply` (never writes itself).
   */
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

export async function decideReply(
  extensions: readonly ChatExtension[],
  turn: ChatTurn,
  db: Database,
): Promise<DecidedReply | null> {
  for (const extension of extensions) {
    const decided = extension.decide ? await extension.decide(turn, db) : null;
    if (decided) return decided;
  }
  return null;
}

export async function processReply(
  extensions: readonly ChatExtension[],
  turn: ChatTurn,
  reply: string,
  db: Database,
): Promise<CollectedReply> {
  const current: CollectedReply = { reply, actions: [], apply: [] };
  for (const extension of extensions) {
    if (!extension.processReply) continue;
    const next = await extension.processReply({ ...turn, reply: current.reply }, db);
    current.reply = next.reply;
    current.actions.push(...next.actions);
    if (next.apply) current.apply.push(next.apply);
  }
  return current;
}
