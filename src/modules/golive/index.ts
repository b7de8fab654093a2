/** The public surface of the golive module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
