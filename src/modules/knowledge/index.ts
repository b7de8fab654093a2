/** The public surface of the knowledge module: what other modules may import (see docs/ARCHITECTURE.md). */
export { gateFor, gatedHits } from './answerability.js';
export { createEmbeddings } from './embeddings.js';
export { parserPool, type ParserLimits } from './imports/document-parser.js';
export { importDeps } from './imports/service.js';
export { ImportWorker } from './imports/worker.js';
export { getKbOnboarding } from './onboarding.js';
export type { KnowledgeHit } from './search.js';
export { countKnowledgeFor, importEntries, searchForAnswer, type EntryInput } from './service.js';
export { backfillPass } from './vectors.js';
