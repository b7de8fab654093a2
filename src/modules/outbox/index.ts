/** The public surface of the outbox module: what other modules may import (see docs/ARCHITECTURE.md). */
export type { Verdict } from './policy.js';
export { deleteMessages, enqueue, listAttempts, type AttemptRow, type OutboxMessage } from './repository.js';
export { OutboxWorker, type OutboxSender, type OutboxWorkerOptions, type SendResult } from './worker.js';
