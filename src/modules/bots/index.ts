/** The public surface of the bots module: what other modules may import (see docs/ARCHITECTURE.md). */
export { createBot } from './editing.js';
export { findBot, holdBot, listBots, lockBot, setGeneratedPrompt, type BotRow } from './repository.js';
export { getBot } from './service.js';
export { guardV1 } from './v1-guard.js';
