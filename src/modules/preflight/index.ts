/** The public surface of the preflight module: what other modules may import (see docs/ARCHITECTURE.md). */
export { checkActivation, runPreflight } from './service.js';
