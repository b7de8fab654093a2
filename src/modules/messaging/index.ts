/** The public surface of the messaging module: what other modules may import (see docs/ARCHITECTURE.md). */
export { sweepWaiting } from './inbound.js';
export { optOutGuard } from './guards.js';
export { personDelivery } from './outbound.js';
export { LIMITS } from './render.js';
export { channelSecretsFor, resealConnectionSecrets } from './secret-store.js';
export { messagingSenders, sendDueNow } from './sender.js';
export { TemplateSendBody } from './schema.js';
export { prepareTemplateSend, type TemplateSend } from './template-service.js';
export { VOICE_SETTING_DEFAULTS, activeVoiceConnection, listBotConnections } from './service.js';
