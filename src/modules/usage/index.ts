/** The public surface of the usage module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
