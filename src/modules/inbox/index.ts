/** The public surface of the inbox module: what other modules may import (see docs/ARCHITECTURE.md). */
export { recordCustomerMessage } from './service.js';
