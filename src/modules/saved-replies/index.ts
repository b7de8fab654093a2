/** The public surface of the saved-replies module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
