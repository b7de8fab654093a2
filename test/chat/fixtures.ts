import type { AppContext } from '../../src/context.js';
import { createEntry } from '../../src/modules/knowledge/service.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../../src/modules/models/provider.js';

/** Stores a knowledge entry for the bot (or tenant-wide with botId null). */
export function addKnowledge(
  ctx: AppContext,
  tenantId: string,
  botId: string | null,
  entry: { title: string; content: string; source_url?: string },
) {
  return createEntry(
    { db: ctx.db, embeddings: null, maxEntryBytes: ctx.config.knowledge.maxEntryBytes, minScore: 0.4 },
    tenantId,
    { botId },
    entry,
    null,
  );
}

/** A model in process that records each request and answers as told (or throws). */
export class RecordingModel implements ModelProvider {
  readonly name = 'recording';
  readonly requests: ModelRequest[] = [];
  answer: (request: ModelRequest) => Promise<ModelReply> = async () => ({
    text: 'Aufgezeichnete Antwort.',
    model: 'recording-model',
    promptTokens: 20,
    completionTokens: 5,
  });

  async generate(request: ModelRequest): Promise<ModelReply> {
    this.requests.push(request);
    return this.answer(request);
  }

  async *stream(request: ModelRequest) {
    const reply = await this.generate(request);
    yield { type: 'delta' as const, text: reply.text };
    yield { type: 'done' as const, reply };
  }
}

/** Replaces the context's model for the duration of a test; returns the restore function. */
export function useModel(ctx: AppContext, model: ModelProvider): () => void {
  const previous = ctx.model;
  ctx.model = model;
  return () => {
    ctx.model = previous;
  };
}
