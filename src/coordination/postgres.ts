import pg from 'pg';
import { genericPlan } from '../db/database.js';
import {
  LocalHandlers,
  RESYNC_CHANNEL,
  memoryCoordination,
  type Broadcast,
  type Coordination,
} from './index.js';

/**
 * Published on every hand-over, several payloads in one statement: its trivial plan is reused,
 * like the chat's own statements.
 */
const NOTIFY = genericPlan('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload');

/** The one PostgreSQL channel every broadcast travels on; the payload names its own channel. */
const PG_CHANNEL = 'parley_broadcast';
const RECONNECT_MS = 1000;
/** pg_notify's payload limit is 8,000 bytes; broadcasts here are ids. */
const MAX_PAYLOAD_BYTES = 7900;

export interface PostgresCoordinationOptions {
  /** Sends one statement (the service's pool): used for `pg_notify`. */
  notify: (sql: string, params: unknown[]) => Promise<unknown>;
}

/**
 * Coordination for several processes on one PostgreSQL database without Redis (instances,
 * or the CLI next to a running server): broadcasts travel as LISTEN/NOTIFY on a connection of
 * their own; counters stay in this process (each instance limits on its own). The listening
 * connection is made in the background and renewed after it drops; while it is down,
 * `broadcastsArrive()` is false so that callers can fall back to reading the database, and
 * after a gap `RESYNC_CHANNEL` tells them to drop what a missed broadcast might have changed.
 */
export function postgresCoordination(
  connectionString: string,
  options: PostgresCoordinationOptions,
): Coordination {
  const local = memoryCoordination();
  const handlers = new LocalHandlers();
  let listener: pg.Client | undefined;
  let listening = false;
  let everListened = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const deliver = (channel: string, message: string) => handlers.deliver(channel, message);

  const reconnectLater = () => {
    listening = false;
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_MS);
    timer.unref();
  };

  async function connect(): Promise<void> {
    if (closed) return;
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000, keepAlive: true });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (listener === client) reconnectLater();
    });
    client.on('notification', ({ channel, payload }) => {
      if (channel !== PG_CHANNEL || !payload) return;
      const cut = payload.indexOf('\n');
      if (cut > 0) deliver(payload.slice(0, cut), payload.slice(cut + 1));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${PG_CHANNEL}`);
    } catch {
      await client.end().catch(() => undefined);
      reconnectLater();
      return;
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    listener = client;
    listening = true;
    if (everListened) deliver(RESYNC_CHANNEL, '');
    everListened = true;
  }
  void connect();

  function payloadsOf(messages: readonly Broadcast[]): string[] {
    const payloads = messages.map(({ channel, message }) => `${channel}\n${message}`);
    if (payloads.some((payload) => Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)) {
      throw new Error('broadcast message too long');
    }
    return payloads;
  }

  async function publishAll(messages: readonly Broadcast[]): Promise<void> {
    const payloads = payloadsOf(messages);
    try {
      await options.notify(NOTIFY, [PG_CHANNEL, payloads]);
    } catch {
      // The database is away: this instance at least hears it; the others fall back to
      // reading the database while their listening connection is down too.
      for (const { channel, message } of messages) deliver(channel, message);
    }
  }

  return {
    increment: (key, windowSeconds) => local.increment(key, windowSeconds),
    count: (key) => local.count(key),
    reset: (key) => local.reset(key),
    publish(channel, message) {
      return publishAll([{ channel, message }]);
    },
    publishAll,
    notifyArguments: (messages) => ({ channel: PG_CHANNEL, payloads: payloadsOf(messages) }),
    async subscribe(channel, handler) {
      handlers.add(channel, handler);
    },
    async unsubscribe(channel, handler) {
      handlers.remove(channel, handler);
    },
    broadcastsArrive: () => listening,
    async close() {
      closed = true;
      clearTimeout(timer);
      listening = false;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
      await local.close();
    },
  };
}
