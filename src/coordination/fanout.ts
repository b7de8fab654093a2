import { RESYNC_CHANNEL, type Broadcast, type Coordination, type StatementNotify } from './index.js';

/**
 * Real-time fan-out across instances: an event on one instance (a new message in a
 * conversation) reaches the streams held by every instance. It travels over the coordination
 * broadcast: Redis pub/sub when REDIS_URL is set, PostgreSQL LISTEN/NOTIFY otherwise, process
 * memory on the embedded database (one process). Payloads are small and name ids; a reader
 * loads what changed from the database, so a lost event costs freshness, never data.
 *
 * After the listening connection was lost and is back, every subscriber gets `{type:
 * 'resync'}`: events may have been missed, so it reloads from the database.
 */
export interface FanoutEvent {
  type: string;
  [field: string]: string | number | boolean | null | undefined;
}

export type FanoutHandler = (event: FanoutEvent) => void;

/** An event and the topic it goes to. */
export interface TopicEvent {
  topic: string;
  event: FanoutEvent;
}

/** The longest payload: ids and a type fit well within it (PostgreSQL NOTIFY allows 8,000 bytes). */
export const MAX_EVENT_BYTES = 1000;

/** Everything of a tenant (the inbox's list, unread counts). */
export function tenantTopic(tenantId: string): string {
  return `fanout:${tenantId}`;
}

/** One conversation (a widget's stream, an open transcript). */
export function conversationTopic(tenantId: string, conversationId: string): string {
  return `fanout:${tenantId}:conversation:${conversationId}`;
}

export class Fanout {
  private readonly subscribers = new Set<{ handler: FanoutHandler }>();

  constructor(private readonly coordination: Coordination) {
    void coordination.subscribe(RESYNC_CHANNEL, () => {
      for (const { handler } of this.subscribers) handler({ type: 'resync' });
    });
  }

  /** Sends an event to every subscriber of the topic on every instance, this one included. */
  publish(topic: string, event: FanoutEvent): Promise<void> {
    return this.publishAll([{ topic, event }]);
  }

  /** Sends several events (each to its topic) in one broadcast round trip. */
  async publishAll(events: readonly TopicEvent[]): Promise<void> {
    await this.coordination.publishAll(broadcastsOf(events));
  }

  /**
   * On PostgreSQL's broadcast, the `pg_notify` arguments with which a statement of the caller's
   * sends these events when it commits; undefined where events travel otherwise (publish them).
   */
  notifyArguments(events: readonly TopicEvent[]): StatementNotify | undefined {
    return this.coordination.notifyArguments?.(broadcastsOf(events));
  }

  /** Calls the handler for each event of the topic until the returned function is called. */
  async subscribe(topic: string, handler: FanoutHandler): Promise<() => Promise<void>> {
    const listener = (message: string) => {
      let event: FanoutEvent;
      try {
        event = JSON.parse(message) as FanoutEvent;
      } catch {
        return;
      }
      handler(event);
    };
    const subscription = { handler };
    this.subscribers.add(subscription);
    await this.coordination.subscribe(topic, listener);
    return async () => {
      this.subscribers.delete(subscription);
      await this.coordination.unsubscribe(topic, listener);
    };
  }
}

function broadcastsOf(events: readonly TopicEvent[]): Broadcast[] {
  return events.map(({ topic, event }) => {
    const message = JSON.stringify(event);
    if (Buffer.byteLength(message) > MAX_EVENT_BYTES) throw new Error('fan-out event too long: send ids');
    return { channel: topic, message };
  });
}

const fanouts = new WeakMap<Coordination, Fanout>();

/** The fan-out of a coordination (one per process and coordination). */
export function fanoutOf(coordination: Coordination): Fanout {
  let fanout = fanouts.get(coordination);
  if (!fanout) {
    fanout = new Fanout(coordination);
    fanouts.set(coordination, fanout);
  }
  return fanout;
}
