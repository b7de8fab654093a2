import { LRUCache } from 'lru-cache';
import { detectLanguage, isFrequentWord, type Language } from '../../shared/language.js';
import type { GroundingHit, ModelProvider, ModelReply, ModelRequest, ModelStreamEvent } from './provider.js';
import { questionText } from '../../shared/salutations.js';
import { codeVariants, NAME_PREFIXES, queryWords } from '../../shared/text.js';
import { questionNames, questionType, splitSentences, typeFit, type QuestionType } from './sentences.js';
import { countPromptTokens, countTokens } from './tokens.js';

/** Says what it is: no language model, a deterministic answerer over the knowledge base. */
export const OFFLINE_MODEL_NAME = 'parley-offline-knowledge-answerer-1';

const MAX_ANSWER_CHARS = 600;
/** Sentences of an answer at most; a second one joins when it scores this share of the best. */
const MAX_SENTENCES = 2;
const SECOND_SENTENCE_SHARE = 0.75;
/** Without any sentence sharing a word with the question: the entry's opening sentences. */
const MAX_OPENING_SENTENCES = 3;
/** Hits scoring at least this share of the best are searched for the answering sentence too. */
const CLOSE_HIT_SHARE = 0.9;

const LEAD_IN: Record<Language, (title: string) => string> = {
  de: (title) => `Laut unseren Informationen zu „${title}“: `,
  en: (title) => `According to our information on "${title}": `,
  fr: (title) => `D'après nos informations sur « ${title} » : `,
  it: (title) => `Secondo le nostre informazioni su «${title}»: `,
};

const HAND_OVER: Record<Language, { formal: string; informal: string }> = {
  de: {
    formal:
      'Dazu liegen mir leider keine gesicherten Informationen vor. Gerne leite ich Ihre Anfrage an eine Mitarbeiterin oder einen Mitarbeiter weiter, die oder der sich bei Ihnen meldet.',
    informal:
      'Dazu liegen mir leider keine gesicherten Informationen vor. Gerne leite ich deine Anfrage an eine Mitarbeiterin oder einen Mitarbeiter weiter, die oder der sich bei dir meldet.',
  },
  en: {
    formal:
      "I'm sorry, I don't have reliable information on that. I'll gladly pass your question on to a member of our team, who will get back to you.",
    informal:
      "Sorry, I don't have reliable information on that. I'll gladly pass your question on to someone from our team, who will get back to you.",
  },
  fr: {
    formal:
      "Je suis désolé, je ne dispose pas d'informations fiables à ce sujet. Je transmets volontiers votre demande à un membre de notre équipe, qui vous recontactera.",
    informal:
      "Désolé, je n'ai pas d'informations fiables à ce sujet. Je transmets volontiers ta demande à quelqu'un de notre équipe, qui te recontactera.",
  },
  it: {
    formal:
      'Mi dispiace, non dispongo di informazioni affidabili su questo argomento. Inoltro volentieri la sua richiesta a un membro del nostro team, che la ricontatterà.',
    informal:
      'Mi dispiace, non ho informazioni affidabili su questo argomento. Inoltro volentieri la tua richiesta a qualcuno del nostro team, che ti ricontatterà.',
  },
};

/** Knowledge entries are often Markdown; the reply rules ask for plain running text. */
export function toPlainText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^\s{0,3}#{1,6}\s+(.*)$/gm, '$1.')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/^\s*\d+[.)]\s+/gm, '')
    .replace(/(\*\*|__|\*|_|`|~~)(.+?)\1/g, '$2')
    .replace(/\|/g, ' ')
    .replace(/\.{2,}(?=\s|$)/g, '.')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Content words of a text, lowercase, without the frequent short words of the four languages. */
function contentWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return words.filter((w) => !isFrequentWord(w));
}

/**
 * Whether a question word and a sentence word mean the same: same first six letters (a crude
 * stem: "Öffnungszeiten" meets "Öffnungszeit"), or one is a part of the other (compounds:
 * "Notdienst" in "Zahnnotdienst").
 */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < 4) return false;
  const stem = short.slice(0, 6);
  if (long.startsWith(stem) && (short.length > 6 || long.length - short.length <= 3)) return true;
  const part = short.length > 6 ? short.slice(0, short.length - 2) : short;
  return part.length >= 5 && long.length > short.length && long.includes(part);
}

/** Linking elements between the parts of a German compound ("Arbeit-s-zeit"). */
const LINKS = ['', 's', 'es', 'n', 'en', 'e', 'er'];
const MIN_PART = 4;

/** Whether `word` occurs in `words` as itself, an inflected form or part of a compound. */
function holds(words: string[], word: string): boolean {
  return words.some((w) => sameWord(word, w) || (word.length >= MIN_PART && w.includes(word)));
}

/**
 * The question's key terms: every code or number it names (joined, lowercase: "AS-206" →
 * as206, "4021") and every name (see questionNames) but the words that begin names and are
 * often abbreviated ("Saint", see NAME_PREFIXES).
 */
export function questionKeyTerms(question: string, language: Language): string[] {
  const codes = queryWords(question).filter((word) => /\p{N}/u.test(word));
  const names = questionNames(question, language).filter((name) => !NAME_PREFIXES.has(name));
  return [...new Set([...codes, ...names])];
}

/**
 * Whether a sentence (with its entry's title) covers a key term: a code or number in any of
 * its search forms ("AS-206" covers as206 and 206, "1.299,00" covers 129900 and 1299); a word
 * as itself, an inflected form, part of a compound ("Notdienst" in "Zahnnotdienst"), or, for a
 * compound term, every one of its two parts ("Werkstattstunde" in "Stundensatz der Werkstatt").
 */
export function coversTerm(text: string, term: string): boolean {
  const lower = text.normalize('NFC').toLowerCase();
  const words: string[] = lower.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (/\p{N}/u.test(term)) return words.includes(term) || codeVariants(text).includes(term);
  if (holds(words, term)) return true;
  // Written apart or hyphenated: "Wi-Fi" and "day pass" hold "wifi" and "daypass".
  if (words.some((w, i) => i + 1 < words.length && sameWord(term, w + words[i + 1]!))) return true;
  for (let i = MIN_PART; i <= term.length - MIN_PART; i += 1) {
    const tail = term.slice(i);
    for (const link of LINKS) {
      const head = term.slice(0, i);
      if (link && !head.endsWith(link)) continue;
      const stem = link ? head.slice(0, -link.length) : head;
      if (stem.length >= MIN_PART && holds(words, stem) && holds(words, tail)) return true;
    }
  }
  return false;
}

interface Sentence {
  text: string;
  /** Its content words (see contentWords). */
  words: string[];
}

/*
 * The sentences of knowledge entries, as plain text with their content words: the same few
 * entries answer chat after chat, and one answer reads each hit's sentences several times.
 * Bounded by bytes (the keys are entry texts).
 */
const sentenceCache = new LRUCache<string, Sentence[]>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (sentences, key) =>
    4 * key.length + sentences.reduce((size, s) => size + 64 + 2 * s.text.length + 40 * s.words.length, 64),
});

/** The sentences of a knowledge text (Markdown is made plain first), cached. */
function sentencesOf(content: string, language: Language): Sentence[] {
  const key = `${language}:${content}`;
  let sentences = sentenceCache.get(key);
  if (!sentences) {
    sentences = splitSentences(toPlainText(content), language).map((text) => ({
      text,
      words: contentWords(text),
    }));
    sentenceCache.set(key, sentences);
  }
  return sentences;
}

/**
 * A question word that the entry's title holds names the topic every sentence of the entry is
 * about ("Was kostet die PZR …" in an entry titled "Professionelle Zahnreinigung"): it tells the
 * sentences apart less than the other words and weighs this much.
 */
const TITLE_WORD_WEIGHT = 0.2;

interface WantedWord {
  word: string;
  weight: number;
}

/**
 * How much offering what the question asks for adds to a sentence's score. A price question's
 * answer is an amount of money, which a sentence sharing the question's words without one cannot
 * give ("38 Zimmer mit Seeblick" against "Was kostet ein Zimmer mit Seeblick?"), so it counts
 * twice as much there.
 */
function typeWeight(type: QuestionType): number {
  return type === 'price' ? 0.6 : 0.3;
}

/** Weighted share of the question's content words a sentence holds, plus a bonus when it offers what is asked. */
function sentenceScore(
  sentence: Sentence,
  wanted: WantedWord[],
  type: QuestionType,
  question: string,
): number {
  const { words } = sentence;
  let overlap = 0;
  let total = 0;
  for (const { word, weight } of wanted) {
    total += weight;
    if (words.some((w) => sameWord(word, w))) overlap += weight;
  }
  if (overlap === 0) return 0;
  return overlap / Math.max(total, 1e-9) + typeWeight(type) * typeFit(sentence.text, type, question);
}

interface Candidate {
  sentence: string;
  index: number;
  score: number;
}

function candidates(content: string, question: string, language: Language, title = ''): Candidate[] {
  const topic = contentWords(toPlainText(title));
  const wanted = [...new Set(contentWords(question))].map((word) => ({
    word,
    weight: topic.some((t) => sameWord(word, t)) ? TITLE_WORD_WEIGHT : 1,
  }));
  const type = questionType(question);
  return sentencesOf(content, language).map((sentence, index) => ({
    sentence: sentence.text,
    index,
    score: sentenceScore(sentence, wanted, type, question),
  }));
}

/**
 * How well the hit's best sentence matches the question, as the offline answerer ranks them:
 * `coverage` is the weighted share of the question's content words that sentence holds (title
 * words weigh less, see TITLE_WORD_WEIGHT), `typeFit` whether it offers what the question type
 * asks for (1 or 0), `answering` whether any sentence covers every key term with the title (the
 * answerer's condition for answering from this hit). A feature of the answerability model.
 */
export function bestSentence(
  content: string,
  question: string,
  language: Language,
  title: string,
  keyTerms: string[],
): { coverage: number; typeFit: number; answering: boolean } {
  const ranked = candidates(content, question, language, title).sort((a, b) => b.score - a.score);
  const best = ranked[0];
  const type = questionType(question);
  const fit = best && best.score > 0 ? typeFit(best.sentence, type, question) : 0;
  const answering = sentencesOf(content, language).some((sentence) =>
    keyTerms.every((term) => coversTerm(`${title} ${sentence.text}`, term)),
  );
  return { coverage: best ? Math.max(0, best.score - typeWeight(type) * fit) : 0, typeFit: fit, answering };
}

/**
 * The part of the hit that answers the question: the whole sentence that best matches the
 * question's words and kind (who → a name, when → a date or time, how many → a number, where →
 * a place), with a neighbour that matches nearly as well, in their original order, within a
 * length budget. Without any overlap, the hit's opening sentences.
 */
export function extractAnswer(
  content: string,
  question: string,
  maxChars = MAX_ANSWER_CHARS,
  language: Language = detectLanguage(question),
  title = '',
  keyTerms: string[] = [],
): string {
  // With key terms, only sentences covering all of them (with the title) may answer.
  const all = candidates(content, question, language, title).filter((c) =>
    keyTerms.every((term) => coversTerm(`${title} ${c.sentence}`, term)),
  );
  if (all.length === 0) return '';
  const ranked = [...all].sort((a, b) => b.score - a.score || a.index - b.index);
  const best = ranked[0]!;
  const pool = best.score > 0 ? ranked.filter((c) => c.score >= best.score * SECOND_SENTENCE_SHARE) : all;
  const chosen: Candidate[] = [];
  let length = 0;
  for (const candidate of pool) {
    if (chosen.length >= (best.score > 0 ? MAX_SENTENCES : MAX_OPENING_SENTENCES)) break;
    if (chosen.length > 0 && length + candidate.sentence.length + 1 > maxChars) continue;
    chosen.push(candidate);
    length += candidate.sentence.length + 1;
  }
  const text = chosen
    .sort((a, b) => a.index - b.index)
    .map((c) => c.sentence)
    .join(' ');
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).replace(/\s+\S*$/, '')} …`;
}

/**
 * The deterministic answer in the user's language: the sentences of the hit that answer the
 * question best (among the hits scoring close to the best one), led in by that entry's title;
 * without a hit, a polite hand-over.
 */
export function offlineAnswer(grounding: ModelRequest['grounding']): string {
  // Greetings, thanks and sign-offs are no part of the question (shared/salutations.ts).
  const question = questionText(grounding.userMessage) || grounding.userMessage;
  const language = detectLanguage(question);
  const hits = [...grounding.knowledge].sort((a, b) => b.score - a.score) as GroundingHit[];
  const terms = questionKeyTerms(question, language);
  // Only a hit with a sentence that covers every key term (with the entry's title) can answer.
  const answering = hits.filter((hit) =>
    sentencesOf(hit.content, language).some((sentence) =>
      terms.every((term) => coversTerm(`${hit.title} ${sentence.text}`, term)),
    ),
  );
  const top = answering[0];
  if (top) {
    let chosen = top;
    let chosenScore = -1;
    for (const hit of answering.filter((h) => h.score >= top.score * CLOSE_HIT_SHARE)) {
      const best = Math.max(0, ...candidates(hit.content, question, language, hit.title).map((c) => c.score));
      if (best * hit.score > chosenScore) {
        chosen = hit;
        chosenScore = best * hit.score;
      }
    }
    const answer = extractAnswer(chosen.content, question, MAX_ANSWER_CHARS, language, chosen.title, terms);
    if (answer) return LEAD_IN[language](toPlainText(chosen.title)) + answer;
  }
  return HAND_OVER[language][grounding.formalAddress ? 'formal' : 'informal'];
}

/** Whether a reply is the offline model's hand-over (it found no answer in the knowledge base). */
export function isHandOverReply(text: string): boolean {
  return Object.values(HAND_OVER).some((texts) => text === texts.formal || text === texts.informal);
}

/** The embedded default model: no network, no randomness, same input → same reply. */
export function offlineProvider(): ModelProvider {
  const reply = (request: ModelRequest): ModelReply => {
    const text = offlineAnswer(request.grounding);
    return {
      text,
      model: OFFLINE_MODEL_NAME,
      promptTokens: countPromptTokens(request.system, request.messages),
      completionTokens: countTokens(text),
      ...(isHandOverReply(text) ? { noAnswer: true } : {}),
    };
  };
  return {
    name: 'offline',
    async generate(request) {
      return reply(request);
    },
    async *stream(request): AsyncGenerator<ModelStreamEvent> {
      const whole = reply(request);
      // Word-sized deltas, like a model would stream them.
      for (const piece of whole.text.match(/\S+\s*/g) ?? []) yield { type: 'delta', text: piece };
      yield { type: 'done', reply: whole };
    },
  };
}
