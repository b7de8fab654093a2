/** The public surface of the unanswered module: what other modules may import (see docs/ARCHITECTURE.md). */
export { topUnanswered } from './service.js';
