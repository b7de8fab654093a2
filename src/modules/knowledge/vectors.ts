import type { Database } from '../../db/database.js';
import { vectorNorm, type EmbeddingsClient } from './embeddings.js';
import * as repo from './repository.js';

/**
 * Background backfill of chunk vectors: entries stored while the embeddings endpoint failed
 * carry `vectors_missing`; once a call to the endpoint succeeds again, their chunks get vectors
 * here, a few entries at a time, outside any request: started by a write that embedded
 * successfully (service.ts) and by the scheduled pass (scheduler.ts), never by a search. One run
 * per client at a time; a run stops at the first failure (the next pass starts another).
 */

const ENTRIES_PER_ROUND = 20;
const running = new WeakMap<EmbeddingsClient, Promise<number>>();

/** Starts a backfill when the client may have left entries without vectors; never throws. */
export function scheduleBackfill(db: Database, client: EmbeddingsClient): void {
  if (!client.needsBackfill || running.has(client)) return;
  client.needsBackfill = false;
  const run = backfillVectors(db, client)
    .catch(() => {
      client.needsBackfill = true;
      return 0;
    })
    .finally(() => running.delete(client));
  running.set(client, run);
}

/** The backfill that is running for this client, if any (tests wait for it). */
export function runningBackfill(client: EmbeddingsClient): Promise<number> | undefined {
  return running.get(client);
}

/**
 * The scheduled pass: when the client may have left entries without vectors, fills them and
 * waits for the run (one started by a write meanwhile included).
 */
export async function backfillPass(db: Database, client: EmbeddingsClient): Promise<void> {
  scheduleBackfill(db, client);
  await running.get(client);
}

/** Gives every entry flagged `vectors_missing` its vectors; returns how many entries were filled. */
export async function backfillVectors(db: Database, client: EmbeddingsClient): Promise<number> {
  let filled = 0;
  for (;;) {
    const entries = await repo.entriesMissingVectors(db, ENTRIES_PER_ROUND);
    if (entries.length === 0) return filled;
    for (const entry of entries) {
      const chunks = await repo.entryChunks(db, entry.tenant_id, entry.id);
      const vectors =
        chunks.length > 0 ? await client.embed(chunks.map((c) => `${entry.title}\n${c.content}`)) : [];
      // The entry may have been replaced meanwhile: only its current chunks are written, and the
      // flag is cleared only when none of them is left without a vector.
      await db.transaction(async (tx) => {
        await repo.writeChunkVectors(
          tx,
          entry.tenant_id,
          entry.id,
          chunks.map((c, i) => ({ id: c.id, embedding: vectors[i], norm: vectorNorm(vectors[i]!) })),
        );
        await repo.clearVectorsMissing(tx, entry.tenant_id, entry.id);
      });
      filled += 1;
    }
  }
}
