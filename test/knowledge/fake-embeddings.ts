import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible embeddings server. Words map to a few "concepts", so texts that
 * share a meaning but no word get similar vectors, as with a real embedding model.
 */
const CONCEPTS: Record<string, number> = {
  auto: 0,
  autos: 0,
  fahrzeug: 0,
  wagen: 0,
  parken: 1,
  parkplatz: 1,
  parkplätze: 1,
  abstellen: 1,
  hund: 2,
  haustiere: 2,
  tiere: 2,
};
const DIMENSION = 8;

export function fakeVector(text: string): number[] {
  const vector = new Array<number>(DIMENSION).fill(0);
  vector[DIMENSION - 1] = 0.05;
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const concept = CONCEPTS[word];
    if (concept !== undefined) vector[concept]! += 1;
  }
  return vector;
}

export interface FakeEmbeddingsServer {
  url: string;
  requests: { authorization?: string; input: string[] }[];
  failNext: number;
  /** Milliseconds each answer waits (a slow endpoint). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddingsServer> {
  const state: FakeEmbeddingsServer = {
    url: '',
    requests: [],
    failNext: 0,
    delayMs: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(raw) as { input: string[] };
      state.requests.push({ authorization: req.headers.authorization, input: body.input });
      if (state.failNext > 0) {
        state.failNext -= 1;
        res.writeHead(503).end();
        return;
      }
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ data: body.input.map((text, index) => ({ index, embedding: fakeVector(text) })) }),
        );
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
