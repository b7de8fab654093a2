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
  /** Sends several messages at once (one round trip), in order, to every instance. */
  publishAll(messages: readonly Broadcast[]): Promise<void>;
  /**
   * PostgreSQL's broadcast only: the `pg_notify` arguments that send these messages from a
   * statement of the caller's own, delivered when it commits (with what it wrote, or not at all).
   */
  notifyArguments?(messages: readonly Broadcast[]): StatementNotify;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  /** Stops delivering the channel's messages to this handler. */
  unsubscribe(channel: string, handler: (message: string) => void): Promise<void>;
  /**
   * Whether broadcasts from other processes arrive right now: false while the listening
   * connection (Redis subscriber, PostgreSQL LISTEN) is down. Absent in process memory.
   */
  broadcastsArrive?(): boolean;
  close(): Promise<void>;
}

/** One message of a broadcast: its channel and text. */
export interface Broadcast {
  channel: string;
  message: string;
}

/** `pg_notify(channel, payload)` for each payload, run by a statement of the caller's. */
export interface StatementNotify {
  channel: string;
  payloads: string[];
}

/**
 * Delivered locally when a listening connection is back after a gap: broadcasts may have been
 * missed, so caches they keep fresh must be dropped.
 */
export const RESYNC_CHANNEL = 'coordination-resync';

const PREFIX = 'parley:';

/** This process's subscribers, by channel. */
export class LocalHandlers {
  private readonly byChannel = new Map<string, Set<(message: string) => void>>();

  deliver(channel: string, message: string): void {
    for (const handler of this.byChannel.get(channel) ?? []) handler(message);
  }

  /** Adds the handler; returns how many the channel has now. */
  add(channel: string, handler: (message: string) => void): number {
    const set = this.byChannel.get(channel) ?? new Set();
    set.add(handler);
    this.byChannel.set(channel, set);
    return set.size;
  }

  /** Removes the handler; true when it was the channel's last one. */
  remove(channel: string, handler: (message: string) => void): boolean {
    const set = this.byChannel.get(channel);
    if (!set?.delete(handler) || set.size > 0) return false;
    this.byChannel.delete(channel);
    return true;
  }

  clear(): void {
    this.byChannel.clear();
  }
}

export function memoryCoordination(): Coordination {
  const counters = new Map<string, { count: number; resetAt: number }>();
  const handlers = new LocalHandlers();
  const publishAll = async (messages: readonly Broadcast[]) => {
    for (const { channel, message } of messages) handlers.deliver(channel, message);
  };
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
    publish: (channel, message) => publishAll([{ channel, message }]),
    publishAll,
    async subscribe(channel, handler) {
      handlers.add(channel, handler);
    },
    async unsubscribe(channel, handler) {
      handlers.remove(channel, handler);
    },
    async close() {
      counters.clear();
      handlers.clear();
    },
  };
}

export interface RedisCoordinationOptions {
  /** Longest wait for one command; past it the command counts as failed. */
  commandTimeoutMs?: number;
  /** Told when Redis goes away and comes back (one log line each). */
  availability?: { markDown(reason: unknown): void; markUp(): void };
}

/**
 * Redis-backed coordination that never makes a request wait for, or fail because of, Redis.
 * The connection is made in the background (the service starts without Redis and uses it
 * once it is there); commands fail at once while it is unreachable (no offline queue) and
 * after `commandTimeoutMs` when it hangs. Then counters fall back to this process's memory
 * (fail-open: each instance limits on its own until Redis is back), and a broadcast reaches
 * this instance only; `broadcastsArrive()` is false meanwhile, so callers that keep caches fresh
 * by broadcasts fall back to reading the database, and `RESYNC_CHANNEL` follows the gap.
 * Counters in Redis are lost when a Redis without persistence restarts.
 */
export async function redisCoordination(
  url: string,
  options: RedisCoordinationOptions = {},
): Promise<Coordination> {
  const { commandTimeoutMs = 500, availability } = options;
  const settings = {
    lazyConnect: true,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    // Reconnect for ever, at most every two seconds.
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  };
  const redis = new Redis(url, {
    ...settings,
    commandTimeout: commandTimeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  // The subscriber queues its SUBSCRIBE until connected and renews it after a reconnect.
  const subscriber = new Redis(url, settings);
  const handlers = new LocalHandlers();
  const deliver = (channel: string, message: string) => handlers.deliver(PREFIX + channel, message);
  let closing = false;
  redis.on('error', (error: Error) => availability?.markDown(error));
  redis.on('close', () => closing || availability?.markDown(new Error('connection closed')));
  redis.on('ready', () => availability?.markUp());
  subscriber.on('error', () => undefined);
  // Broadcasts arrive only while the subscriber is connected (ioredis subscribes again on
  // every reconnect, before 'ready'). After a gap, what a missed broadcast changed must go.
  let subscribed = false;
  let everSubscribed = false;
  subscriber.on('close', () => {
    subscribed = false;
  });
  subscriber.on('ready', () => {
    subscribed = true;
    if (everSubscribed) deliver(RESYNC_CHANNEL, '');
    everSubscribed = true;
  });
  // Connected before the first request when Redis is there; started without it otherwise.
  await Promise.race([
    redis.connect().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, settings.connectTimeout).unref()),
  ]);
  subscriber.connect().catch(() => undefined);

  const local = memoryCoordination();
  subscriber.on('message', (channel: string, message: string) => {
    if (channel.startsWith(PREFIX)) deliver(channel.slice(PREFIX.length), message);
  });
  /** Runs the Redis command; when Redis cannot answer, the local fallback. */
  const orLocal = async <T>(remote: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => {
    try {
      const result = await remote();
      availability?.markUp();
      return result;
    } catch (error) {
      availability?.markDown(error);
      return fallback();
    }
  };
  const publishAll = (messages: readonly Broadcast[]) =>
    orLocal(
      async () => {
        const pipeline = redis.pipeline();
        for (const { channel, message } of messages) pipeline.publish(PREFIX + channel, message);
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error);
        if (failed) throw failed[0];
      },
      // This instance at least hears it; the others' subscribers are cut off from the same
      // Redis, so they do not rely on broadcasts meanwhile and drop their caches after it.
      async () => {
        for (const { channel, message } of messages) deliver(channel, message);
      },
    );
  return {
    redis,
    increment: (key, windowSeconds) =>
      orLocal(
        async () => {
          const results = await redis
            .multi()
            .incr(PREFIX + key)
            .expire(PREFIX + key, windowSeconds, 'NX')
            .exec();
          return Number(results?.[0]?.[1] ?? 0);
        },
        () => local.increment(key, windowSeconds),
      ),
    count: (key) =>
      orLocal(
        async () => Number((await redis.get(PREFIX + key)) ?? 0),
        () => local.count(key),
      ),
    reset: async (key) => {
      await local.reset(key);
      await orLocal(
        async () => {
          await redis.del(PREFIX + key);
        },
        async () => undefined,
      );
    },
    publish: (channel, message) => publishAll([{ channel, message }]),
    publishAll,
    async subscribe(channel, handler) {
      const full = PREFIX + channel;
      if (handlers.add(full, handler) !== 1) return;
      const confirmed = subscriber.subscribe(full).catch(() => undefined);
      // While connected, resolve once Redis confirmed the subscription, so a message published
      // right after arrives; while disconnected, the SUBSCRIBE waits in the queue for the reconnect.
      if (subscribed) await confirmed;
    },
    async unsubscribe(channel, handler) {
      const full = PREFIX + channel;
      if (!handlers.remove(full, handler)) return;
      subscriber.unsubscribe(full).catch(() => undefined);
    },
    broadcastsArrive: () => subscribed,
    async close() {
      closing = true;
      subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
      await local.close();
    },
  };
}
