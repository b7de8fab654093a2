/** The public surface of the prompt module: what other modules may import (see docs/ARCHITECTURE.md). */
export { assembleSystemPrompt, protectForModel } from './assemble.js';
export { inlineText } from './delimiters.js';
