/** The public surface of the notifications module: what other modules may import (see docs/ARCHITECTURE.md). */
export { insertNotification } from './repository.js';
