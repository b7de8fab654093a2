/** Longest reply or note of a person (characters). */
export const MAX_TEXT = 4000;
/** Messages the inbox's transcript shows (the latest). */
export const TRANSCRIPT_LIMIT = 200;
