import { detectLanguage, isFrequentWord, type Language } from './language.js';
import type { GroundingHit, ModelProvider, ModelReply, ModelRequest, ModelStreamEvent } from './provider.js';
import { countPromptTokens, countTokens } from './tokens.js';

/** Says what it is: no language model, a deterministic answerer over the knowledge base. */
export const OFFLINE_MODEL_NAME = 'parley-offline-knowledge-answerer-1';

const MAX_ANSWER_CHARS = 600;

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

function sentences(text: string): string[] {
  return (
    text
      .match(/[^.!?]+(?:[.!?]+|$)/g)
      ?.map((s) => s.trim())
      .filter(Boolean) ?? []
  );
}

/** Content words cut to a crude stem, so "Öffnungszeiten" meets "Öffnungszeit". */
function terms(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return new Set(words.filter((w) => !isFrequentWord(w)).map((w) => w.slice(0, 6)));
}

/**
 * The part of the hit that answers the question: sentences sharing words with it, in their
 * original order, within a length budget. Without any overlap, the hit's opening sentences.
 */
export function extractAnswer(content: string, question: string, maxChars = MAX_ANSWER_CHARS): string {
  const plain = toPlainText(content);
  const all = sentences(plain);
  if (all.length === 0) return '';
  const wanted = terms(question);
  const scored = all.map((sentence, index) => {
    let overlap = 0;
    for (const term of terms(sentence)) if (wanted.has(term)) overlap += 1;
    return { sentence, index, overlap };
  });
  const relevant = scored.filter((s) => s.overlap > 0);
  const pool =
    relevant.length > 0 ? [...relevant].sort((a, b) => b.overlap - a.overlap || a.index - b.index) : scored;
  const chosen: typeof scored = [];
  let length = 0;
  for (const candidate of pool) {
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

/** The deterministic answer: from the best hit in the user's language, else a polite hand-over. */
export function offlineAnswer(grounding: ModelRequest['grounding']): string {
  const language = detectLanguage(grounding.userMessage);
  const best = [...grounding.knowledge].sort((a, b) => b.score - a.score)[0] as GroundingHit | undefined;
  if (best) {
    const answer = extractAnswer(best.content, grounding.userMessage);
    if (answer) return LEAD_IN[language](toPlainText(best.title)) + answer;
  }
  return HAND_OVER[language][grounding.formalAddress ? 'formal' : 'informal'];
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
