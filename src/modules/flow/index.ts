/** The public surface of the flow module: what other modules may import (see docs/ARCHITECTURE.md). */
export { analysePreflight, type PreflightAnalysis } from './analysis.js';
export { foldWord, matchChoice } from './engine.js';
export type { FlowBlock } from './model.js';
export { listBlocks, listSteps, toFlowBlock, toFlowStep } from './repository.js';
export { ChatBlockSchema } from './schema.js';
export type { ChatBlock } from './stage.js';
export * as flowStage from './stage.js';
