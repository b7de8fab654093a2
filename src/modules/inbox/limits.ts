/** Longest reply or note of a person (characters). */
export const MAX_TEXT = 4000;
/** Messages the inbox's transcript shows (the latest). */
export const TRANSCRIPT_LIMIT = 200;
/** Conversations per page of the inbox list (default; at most MAX_INBOX_PAGE). */
export const INBOX_PAGE = 50;
export const MAX_INBOX_PAGE = 200;
