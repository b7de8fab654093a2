import { pino } from 'pino';
import type { Config } from '../../config.js';

/** Turns texts into vectors; one vector per text, in order. */
export interface EmbeddingsClient {
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
  /**
   * True while stored entries may lack vectors (a call failed since the last backfill, or
   * none has run in this process yet); see vectors.ts.
   */
  needsBackfill?: boolean;
}

export class EmbeddingsError extends Error {}

const BATCH = 64;
export const DEFAULT_EMBEDDINGS_TIMEOUT_MS = 5000;
/** Consecutive failures that open the circuit breaker. */
const BREAKER_FAILURES = 3;

export interface EmbeddingsLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Guards a client: every failure is logged (with its reason, never the key); after
 * BREAKER_FAILURES failures in a row the endpoint is not called for `breakerMs` (calls fail at
 * once), then one call tries again. While stored entries may lack vectors, `needsBackfill` is true.
 */
export function guardedEmbeddings(
  client: EmbeddingsClient,
  options: { breakerMs: number; log: EmbeddingsLog; now?: () => number },
): EmbeddingsClient & { readonly open: boolean } {
  const now = options.now ?? Date.now;
  let failures = 0;
  let openUntil = 0;
  return {
    model: client.model,
    needsBackfill: true,
    get open() {
      return failures >= BREAKER_FAILURES && now() < openUntil;
    },
    async embed(texts) {
      if (failures >= BREAKER_FAILURES && now() < openUntil) {
        throw new EmbeddingsError('Embeddings endpoint skipped: circuit breaker open');
      }
      try {
        const vectors = await client.embed(texts);
        if (failures >= BREAKER_FAILURES)
          options.log.info({ model: client.model }, 'embeddings endpoint back');
        failures = 0;
        return vectors;
      } catch (error) {
        failures += 1;
        this.needsBackfill = true;
        const reason = error instanceof Error ? error.message : String(error);
        if (failures >= BREAKER_FAILURES) openUntil = now() + options.breakerMs;
        options.log.warn(
          {
            model: client.model,
            reason,
            failures,
            breaker_open_ms: failures >= BREAKER_FAILURES ? options.breakerMs : 0,
          },
          'embeddings request failed',
        );
        throw error;
      }
    },
  };
}

/**
 * A client of an OpenAI-compatible `POST {base}/embeddings` endpoint (OpenAI, Azure, Ollama,
 * vLLM, llama.cpp server). The API key goes only into the Authorization header.
 */
export function httpEmbeddings(options: {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}): EmbeddingsClient {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    model: options.model,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        vectors.push(...(await embedBatch(endpoint, options, texts.slice(i, i + BATCH))));
      }
      return vectors;
    },
  };
}

async function embedBatch(
  endpoint: string,
  options: { apiKey?: string; model: string; timeoutMs?: number },
  input: string[],
): Promise<number[][]> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: options.model, input }),
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_EMBEDDINGS_TIMEOUT_MS),
    });
  } catch (error) {
    throw new EmbeddingsError(`Embeddings endpoint unreachable: ${(error as Error).name}`);
  }
  if (!response.ok) throw new EmbeddingsError(`Embeddings endpoint answered HTTP ${response.status}`);
  const body = (await response.json()) as { data?: { index?: number; embedding?: unknown }[] };
  const data = Array.isArray(body.data) ? body.data : [];
  const vectors: number[][] = new Array<number[]>(input.length);
  data.forEach((item, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    if (isVector(item.embedding) && index >= 0 && index < input.length) vectors[index] = item.embedding;
  });
  for (let i = 0; i < input.length; i += 1) {
    if (!vectors[i]) throw new EmbeddingsError('Embeddings endpoint returned too few vectors');
  }
  const dimension = vectors[0]!.length;
  if (dimension === 0 || vectors.some((v) => v.length !== dimension)) {
    throw new EmbeddingsError('Embeddings endpoint returned vectors of differing length');
  }
  return vectors;
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/**
 * The deployment's embeddings client, or null when EMBEDDINGS_BASE_URL is not set (search is
 * then full-text and trigram only), with the timeout EMBEDDINGS_TIMEOUT_MS and the circuit
 * breaker EMBEDDINGS_BREAKER_MS. Built once by the application context (ctx.embeddings).
 */
export function createEmbeddings(config: Config): EmbeddingsClient | null {
  const knowledge = config.knowledge;
  if (!knowledge.embeddingsBaseUrl) return null;
  return guardedEmbeddings(
    httpEmbeddings({
      baseUrl: knowledge.embeddingsBaseUrl,
      apiKey: knowledge.embeddingsApiKey,
      model: knowledge.embeddingsModel,
      timeoutMs: knowledge.embeddingsTimeoutMs,
    }),
    { breakerMs: knowledge.embeddingsBreakerMs, log: pino({ name: 'embeddings', level: config.logLevel }) },
  );
}

export function vectorNorm(vector: readonly number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}
