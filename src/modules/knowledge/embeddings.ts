import type { Config } from '../../config.js';

/** Turns texts into vectors; one vector per text, in order. */
export interface EmbeddingsClient {
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
}

export class EmbeddingsError extends Error {}

const BATCH = 64;
const TIMEOUT_MS = 15_000;

/**
 * A client of an OpenAI-compatible `POST {base}/embeddings` endpoint (OpenAI, Azure, Ollama,
 * vLLM, llama.cpp server). The API key goes only into the Authorization header.
 */
export function httpEmbeddings(options: {
  baseUrl: string;
  apiKey?: string;
  model: string;
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
  options: { apiKey?: string; model: string },
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
      signal: AbortSignal.timeout(TIMEOUT_MS),
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

const clients = new WeakMap<object, EmbeddingsClient | null>();

/**
 * The deployment's embeddings client, or null when EMBEDDINGS_BASE_URL is not set (search is
 * then full-text and trigram only). One client per configuration object.
 */
export function embeddingsFor(config: Config): EmbeddingsClient | null {
  const knowledge = config.knowledge;
  if (!clients.has(knowledge)) {
    clients.set(
      knowledge,
      knowledge.embeddingsBaseUrl
        ? httpEmbeddings({
            baseUrl: knowledge.embeddingsBaseUrl,
            apiKey: knowledge.embeddingsApiKey,
            model: knowledge.embeddingsModel,
          })
        : null,
    );
  }
  return clients.get(knowledge) ?? null;
}

export function vectorNorm(vector: readonly number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}
