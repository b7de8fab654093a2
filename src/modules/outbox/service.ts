/**
 * What other modules use of the outbox: queue messages in their own transaction, read a
 * message's attempt log. The worker (worker.ts) and the dead-letter routes do the rest.
 */
export { enqueue, listAttempts, type AttemptRow, type NewMessage, type OutboxMessage } from './repository.js';
export type { OutboxSender, SendResult } from './worker.js';
