import type { AppContext } from '../../src/shared/context.js';
import type { EmbeddingsClient } from '../../src/modules/knowledge/embeddings.js';
import { importEntries, type EntryInput, type KnowledgeDeps } from '../../src/modules/knowledge/service.js';

export function knowledgeDeps(ctx: AppContext, embeddings: EmbeddingsClient | null = null): KnowledgeDeps {
  return {
    db: ctx.db,
    embeddings,
    maxEntryBytes: ctx.config.knowledge.maxEntryBytes,
    minScore: ctx.config.knowledge.minScore,
  };
}

/** Stores entries for a bot (or tenant-wide with botId null) and returns their ids in order. */
export async function addEntries(
  ctx: AppContext,
  tenantId: string,
  botId: string | null,
  entries: EntryInput[],
  embeddings: EmbeddingsClient | null = null,
): Promise<string[]> {
  const rows = await importEntries(knowledgeDeps(ctx, embeddings), tenantId, { botId }, entries, null);
  return rows.map((r) => r.id);
}
