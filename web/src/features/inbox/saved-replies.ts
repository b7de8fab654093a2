/** A saved reply as the reply box uses it. */
export interface SavedReplyText {
  name: string;
  content: string;
}

/**
 * The reply box's text with a typed `/name` replaced by that saved reply's text, once the name
 * is complete (followed by a space or a line break, or at the end when it names a reply exactly).
 * Unchanged when no saved reply has the name.
 */
export function expandSavedReplies(text: string, replies: readonly SavedReplyText[]): string {
  if (!text.includes('/') || replies.length === 0) return text;
  const byName = new Map(replies.map((r) => [r.name, r.content]));
  return text.replace(/(^|\s)\/([a-z0-9][a-z0-9_-]*)(?=\s|$)/g, (whole, before: string, name: string) => {
    const content = byName.get(name);
    return content === undefined ? whole : `${before}${content}`;
  });
}
