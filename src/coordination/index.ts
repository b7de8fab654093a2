import { Redis } from 'ioredis';

/**
 * State that several instances must share: fixed-window counters and a broadcast channel.
 * Redis when REDIS_URL is set, process memory otherwise (one instance only).
 */
export interface Coordination {
  readonly redis?: Redis;
  /** Adds one to the counter `key` for a window of `windowSeconds`; returns the new count. */
  increment(key: string, windowSeconds: number): Promise<number>;
  /** The counter's current value (0 when absent or expired). */
  count(key: string): Promise<number>;
  reset(key: string): Promise<void>;
  /** Sends a message to every instance, this one included. */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = 'parley:';

export function memoryCoordination(): Coordination {
  const counters = new Map<string, { count: number; resetAt: number }>();
  const handlers = new Map<string, Set<(message: string) => void>>();
  return {
    async increment(key, windowSeconds) {
      const now = Date.now();
      const current = counters.get(key);
      if (!current || current.resetAt <= now) {
        counters.set(key, { count: 1, resetAt: now + windowSeconds * 1000 });
        if (counters.size > 100_000) {
          for (const [k, v] of counters) if (v.resetAt <= now) counters.delete(k);
        }
        return 1;
      }
      current.count += 1;
      return current.count;
    },
    async count(key) {
      const current = counters.get(key);
      return current && current.resetAt > Date.now() ? current.count : 0;
    },
    async reset(key) {
      counters.delete(key);
    },
    async publish(channel, message) {
      for (const handler of handlers.get(channel) ?? []) handler(message);
    },
    async subscribe(channel, handler) {
      const set = handlers.get(channel) ?? new Set();
      set.add(handler);
      handlers.set(channel, set);
    },
    async close() {
      counters.clear();
      handlers.clear();
    },
  };
}

export async function redisCoordination(url: string): Promise<Coordination> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  const subscriber = new Redis(url, { lazyConnect: true });
  await redis.connect();
  await subscriber.connect();
  const handlers = new Map<string, Set<(message: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });
  return {
    redis,
    async increment(key, windowSeconds) {
      const results = await redis
        .multi()
        .incr(PREFIX + key)
        .expire(PREFIX + key, windowSeconds, 'NX')
        .exec();
      return Number(results?.[0]?.[1] ?? 0);
    },
    async count(key) {
      return Number((await redis.get(PREFIX + key)) ?? 0);
    },
    async reset(key) {
      await redis.del(PREFIX + key);
    },
    async publish(channel, message) {
      await redis.publish(PREFIX + channel, message);
    },
    async subscribe(channel, handler) {
      const full = PREFIX + channel;
      const set = handlers.get(full) ?? new Set();
      set.add(handler);
      handlers.set(full, set);
      if (set.size === 1) await subscriber.subscribe(full);
    },
    async close() {
      subscriber.disconnect();
      await redis.quit().catch(() => undefined);
    },
  };
}
