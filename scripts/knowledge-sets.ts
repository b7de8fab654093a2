/**
 * What the knowledge evaluation (eval-knowledge.ts) and the answerability training
 * (train-answerability.ts) share: a fresh tenant with a bot, loading a set's paragraphs as the
 * bot's entries, and the split by topic (the part of a title before " – " names the business or
 * article).
 */
import type { Database } from '../src/db/database.js';
import { createBot } from '../src/modules/bots/editing.js';
import { findBot } from '../src/modules/bots/repository.js';
import { importEntries, MAX_IMPORT_ENTRIES, type KnowledgeDeps } from '../src/modules/knowledge/service.js';
import { createTenant } from '../src/modules/tenants/service.js';

/** A new tenant (plan business) with one bot of the same name, through the real services. */
export async function freshBot(db: Database, name: string) {
  const { tenant } = await db.transaction((tx) => createTenant(tx, { name, plan: 'business' }));
  const created = await createBot(db, tenant.id, { name });
  return { tenant, bot: (await findBot(db, tenant.id, created.id))! };
}

/** The business (or article) a paragraph belongs to: the part of its title before " – ". */
export const businessOf = (title: string) => title.split(' – ')[0]!;

/** Which half of the split a business falls into (stable, by a hash of its name). */
export function halfOf(business: string): number {
  let hash = 0;
  for (const char of business) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return hash % 2;
}

/** Imports the paragraphs as the bot's entries through the real service; entry id → paragraph id. */
export async function importParagraphs(
  deps: KnowledgeDeps,
  tenantId: string,
  botId: string,
  paragraphs: { id: string; title: string; content: string }[],
): Promise<Map<string, string>> {
  const paragraphOf = new Map<string, string>();
  for (let i = 0; i < paragraphs.length; i += MAX_IMPORT_ENTRIES) {
    const batch = paragraphs.slice(i, i + MAX_IMPORT_ENTRIES);
    const stored = await importEntries(
      deps,
      tenantId,
      { botId },
      batch.map((p) => ({ title: p.title, content: p.content })),
      null,
    );
    stored.forEach((entry, j) => paragraphOf.set(entry.id, batch[j]!.id));
  }
  return paragraphOf;
}
