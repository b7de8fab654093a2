import { afterAll, beforeAll, beforeEach } from 'vitest';
import { testConfig } from '../../src/config.js';
import type { AppContext } from '../../src/shared/context.js';
import { createEntry } from '../../src/modules/knowledge/service.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../../src/modules/models/provider.js';
import { FakeModelServer } from './fake-model-server.js';

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

/**
 * The app's model for the tests of one describe block: an OpenAI-compatible (default) or
 * Anthropic client of a fake model server, started before them and stopped after; its
 * recordings and queue are cleared before each test.
 */
export function useFakeModelServer(
  get: () => { ctx: AppContext },
  options: { timeoutMs: number; provider?: 'openai' | 'anthropic' },
): FakeModelServer {
  const server = new FakeModelServer();
  let restore: () => void;
  beforeAll(async () => {
    await server.start();
    const provider = options.provider ?? 'openai';
    const config = testConfig({
      MODEL_PROVIDER: provider,
      MODEL_NAME: 'parley-test-model',
      ...(provider === 'openai'
        ? { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test-provider-key' }
        : { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-provider-key' }),
      MODEL_TIMEOUT_MS: String(options.timeoutMs),
    });
    restore = useModel(get().ctx, createModelProvider(config.model));
  });
  afterAll(async () => {
    restore();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.queue = [];
  });
  return server;
}
