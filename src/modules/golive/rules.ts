/**
 * The go-live checklist of a bot, decided from facts alone (no I/O): what must be done before
 * the bot meets customers, each item with the dashboard place where it is done.
 */
import { liveEntries, type GoLiveEntry } from '../channels/index.js';

export const GOLIVE_ITEMS = ['prompt', 'knowledge', 'preflight', 'channel', 'test_conversation'] as const;
export type GoLiveItem = (typeof GOLIVE_ITEMS)[number];

export interface GoLiveFacts {
  /** The bot's current prompt text. */
  prompt: string;
  /** Knowledge entries the bot answers from (its own and those for all bots). */
  knowledgeEntries: number;
  /** The pre-flight check has no red block. */
  preflightGreen: boolean;
  /** The widget is on with at least one allowed website. */
  widgetLive: boolean;
  /** The hosted share page is on. */
  shareLink: boolean;
  /** Active mailboxes connected to the bot. */
  mailboxes: number;
  /** The test chat held an exchange (a reply came). */
  testExchange: boolean;
  isActive: boolean;
}

export interface ChecklistItem {
  key: GoLiveItem;
  done: boolean;
  /** Where in the dashboard the item is done, relative to the bot's page. */
  tab: 'prompt' | 'knowledge' | 'flow' | 'channels' | 'chat';
  /** For the channel: which channels count. */
  channels?: GoLiveEntry[];
}

export interface GoLiveChecklist {
  items: ChecklistItem[];
  /** Every item is done. */
  ready: boolean;
  /** The keys of the items still open, in checklist order. */
  missing: GoLiveItem[];
  is_active: boolean;
}

export function goLiveChecklist(facts: GoLiveFacts): GoLiveChecklist {
  // Each channel's descriptor names the checklist entries it makes count, and their facts.
  const channels = liveEntries(facts);
  const items: ChecklistItem[] = [
    { key: 'prompt', done: facts.prompt.trim() !== '', tab: 'prompt' },
    { key: 'knowledge', done: facts.knowledgeEntries > 0, tab: 'knowledge' },
    { key: 'preflight', done: facts.preflightGreen, tab: 'flow' },
    { key: 'channel', done: channels.length > 0, tab: 'channels', channels },
    { key: 'test_conversation', done: facts.testExchange, tab: 'chat' },
  ];
  const missing = items.filter((item) => !item.done).map((item) => item.key);
  return { items, ready: missing.length === 0, missing, is_active: facts.isActive };
}
