/** The public surface of the email module: what other modules may import (see docs/ARCHITECTURE.md). */
export { exactlyOne, replyTargets, type AddressFields, type MailAddress } from './addresses.js';
export { connectorErrorText, describeConnectorError } from './connector-errors.js';
export { readDeliveryReport } from './dsn.js';
export { renderMailReply } from './format.js';
export { headersFromPairs, mailFromParsed, type MailInput } from './mail.js';
export { stripReply } from './quotes.js';
export { canonicalSkipReason } from './reasons.js';
export { DUPLICATE_BODY_WINDOW_MS, bodyFingerprint, isAutomated, loopGuard } from './robots.js';
export {
  OWN_MESSAGE_ID_LOCAL,
  bareId,
  chooseThread,
  ownMessageId,
  replyHeaders,
  threadCandidates,
  type KnownMessage,
} from './threading.js';
