import { createRequire } from 'node:module';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

/*
 * The rate limit's counter store: Redis when configured (one limit shared by every instance),
 * this process's memory when Redis cannot answer (fail-open with local counters: a request is
 * never refused with 500 or held for seconds because Redis is down or frozen; each instance
 * then limits on its own until Redis is back). The plugin's own two stores do the counting.
 */
type Done = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface CounterStore {
  incr(key: string, done: Done, timeWindow?: number, max?: number): void;
  child(routeOptions: never): CounterStore;
}

const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => CounterStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => CounterStore;

class ResilientStore implements CounterStore {
  constructor(
    private readonly remote: CounterStore | undefined,
    private readonly local: CounterStore,
    private readonly availability?: { markDown(reason: unknown): void; markUp(): void },
  ) {}

  incr(key: string, done: Done, timeWindow?: number, max?: number): void {
    if (!this.remote) return this.local.incr(key, done, timeWindow, max);
    this.remote.incr(
      key,
      (error, result) => {
        if (error) {
          this.availability?.markDown(error);
          this.local.incr(key, done, timeWindow, max);
        } else {
          this.availability?.markUp();
          done(null, result ?? undefined);
        }
      },
      timeWindow,
      max,
    );
  }

  child(routeOptions: never): CounterStore {
    return new ResilientStore(
      this.remote?.child(routeOptions),
      this.local.child(routeOptions),
      this.availability,
    );
  }
}

/** The `store` option of @fastify/rate-limit. */
export function resilientRateLimitStore(
  redis: Redis | undefined,
  nameSpace: string,
  availability?: { markDown(reason: unknown): void; markUp(): void },
): FastifyRateLimitStoreCtor {
  return class extends ResilientStore {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = params.continueExceeding ?? false;
      const exponentialBackoff = params.exponentialBackoff ?? false;
      super(
        redis ? new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace) : undefined,
        new LocalStore(continueExceeding, exponentialBackoff),
        availability,
      );
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
