/** The public surface of the system module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
