/** The public surface of the conversations module: what other modules may import (see docs/ARCHITECTURE.md). */
export { exchangeStatement, type ExchangeParams } from './exchange-repository.js';
export { recordCustomerMessage } from './customer-message.js';
export {
  HANDOVER_REASONS,
  decide,
  stateOf,
  type HandoverAction,
  type HandoverReason,
  type HandoverState,
} from './handover.js';
export {
  endConversation,
  escalateConversation,
  rateConversation,
  sweepInactiveConversations,
} from './lifecycle.js';
export {
  handoverNotify,
  publishHandover,
  publishRefusal,
  publishInboxChange,
  publishMessage,
  publishTyping,
} from './live.js';
export { asksForPerson, connectingReply } from './person-request.js';
export {
  MARK_TEST_CONVERSATION,
  deleteConversationsByIds,
  deleteConversationsOfPerson,
  hasTestExchange,
  insertCustomerMessage,
  insertStaffMessage,
  linkSenderConversations,
  relinkConversationsOfPerson,
  writeHandoverState,
  type ConversationRow,
} from './repository.js';
export { countAddedCustomerMessage, getConversationDetail, waitInInbox } from './service.js';
