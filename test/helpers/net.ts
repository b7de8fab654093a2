import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on at the moment of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `everyMs` until it is true and returns the milliseconds it took; throws
 * after `ms` naming `what`. Tests wait for a condition, never for a fixed time.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
  everyMs = 20,
): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await Promise.resolve(check()).catch(() => false)) return Date.now() - started;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
