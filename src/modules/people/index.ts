/** The public surface of the people module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
