/** The public surface of the voice module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
