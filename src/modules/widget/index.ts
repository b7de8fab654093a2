/** The public surface of the widget module: what other modules may import (see docs/ARCHITECTURE.md). */
export { widgetDelivery, widgetPushSender } from './events.js';
export { widgetBudgetGuard } from './limits.js';
export { widgetChannels } from './service.js';
export { sharePageRoutes } from './share-page.js';
export { queueReplyEmail, visitorContextOf, widgetEmailSender } from './visitor-service.js';
