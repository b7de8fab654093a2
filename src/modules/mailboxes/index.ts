/** The public surface of the mailboxes module: what other modules may import (see docs/ARCHITECTURE.md). */
export { warnExpiringSecrets } from './connectors/health.js';
export { emailLoopGuard } from './connectors/loop-guard.js';
export { createEmailSender, personMailDelivery } from './connectors/sender.js';
export { MailboxConnections } from './connectors/sync.js';
export { forgetSender, lastBounceOf, listBotMailboxes, resealMailboxSecrets } from './service.js';
