/** The public surface of the reminders module: nothing; app.ts registers its routes (see docs/ARCHITECTURE.md). */
export {};
