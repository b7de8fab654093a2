import { queryWords } from '../../shared/text.js';

/**
 * The key questions are grouped by: their words after the knowledge search's normalisation
 * (lowercase, codes joined, filler words and greetings of the four languages left out), sorted
 * and without repeats. Null when nothing but filler remains.
 */
export function groupKey(question: string): string | null {
  const words = [...new Set(queryWords(question))].sort();
  return words.length === 0 ? null : words.join(' ').slice(0, 500);
}

export interface Occurrence {
  messageId: string;
  conversationId: string;
  question: string;
  at: Date;
  handedOver: boolean;
  /** A person's later reply in the conversation, when one exists. */
  personAnswer: string | null;
}

export interface UnansweredGroup {
  key: string;
  /** The newest wording of the question. */
  question: string;
  count: number;
  handed_over: number;
  last_seen: Date;
  conversation_ids: string[];
  person_answer: string | null;
}

/** Groups occurrences by key, most frequent first (then most recent); resolved ones are left out. */
export function groupQuestions(
  occurrences: Occurrence[],
  resolvedAt: ReadonlyMap<string, Date> = new Map(),
): UnansweredGroup[] {
  const groups = new Map<string, UnansweredGroup>();
  const newestFirst = [...occurrences].sort((a, b) => b.at.getTime() - a.at.getTime());
  for (const o of newestFirst) {
    const key = groupKey(o.question);
    if (!key) continue;
    const resolved = resolvedAt.get(key);
    if (resolved && o.at <= resolved) continue;
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        question: o.question,
        count: 0,
        handed_over: 0,
        last_seen: o.at,
        conversation_ids: [],
        person_answer: null,
      };
      groups.set(key, group);
    }
    group.count += 1;
    if (o.handedOver) group.handed_over += 1;
    if (!group.conversation_ids.includes(o.conversationId)) group.conversation_ids.push(o.conversationId);
    group.person_answer ??= o.personAnswer;
  }
  return [...groups.values()].sort(
    (a, b) =>
      b.count - a.count || b.last_seen.getTime() - a.last_seen.getTime() || a.key.localeCompare(b.key),
  );
}
