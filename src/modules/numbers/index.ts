/** The public surface of the numbers module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
