import type { BotRow } from '../bots/service.js';
import type { KnowledgeHit } from '../knowledge/search.js';
import { TAG, escapeAttribute, escapeText, inlineText, neutraliseReservedTags, wrap } from './delimiters.js';
import {
  BEHAVIOR_RULES,
  HIGH_CONFIDENCE,
  MEDIUM_CONFIDENCE,
  NO_KNOWLEDGE,
  SCORE_CONFIDENCE,
  SECURITY_LAYER,
  STRICTNESS,
  addressRule,
  checkpointText,
  emojiRule,
} from './layers.js';
import { NO_ANSWER_MARKER } from '../models/no-answer.js';
import { findIndustryVocabulary, type IndustryVocabulary } from './vocabulary.js';

/**
 * Prompt assembly: pure functions, no I/O. assembleSystemPrompt builds the layered system
 * prompt; protectForModel wraps it and the conversation for a direct model call.
 */

export type BotLike = Pick<
  BotRow,
  'system_prompt' | 'knowledge_strictness' | 'emoji_usage' | 'formal_address' | 'industry_code'
> & { system_prompt_generated?: string | null };

export interface TenantLike {
  industry_code: string | null;
}

export interface AssembleOptions {
  /** false for a deployment that applies its own security layer (PROMPT_SECURITY_LAYER). */
  securityLayer: boolean;
  /** Appended after the knowledge parts, e.g. the bookable events. */
  extraSections?: { name: string; text: string }[];
  /** Extends or overrides the built-in industry vocabulary, keyed by industry code. */
  industryVocabularies?: Record<string, IndustryVocabulary>;
  /** How to write on the turn's channel (the channel descriptor's `promptHint`), if any. */
  channelHint?: string | null;
}

export interface PromptSection {
  name: string;
  /** Protected sections exist for the dashboard by name only; their text is not shown. */
  protected: boolean;
}

export interface AssembledPrompt {
  text: string;
  sections: PromptSection[];
}

export const SECTION = {
  security: 'security',
  botPrompt: 'bot_prompt',
  behaviorRules: 'behavior_rules',
  strictness: 'strictness',
  industry: 'industry_vocabulary',
  confidence: 'score_confidence',
  knowledgeRules: 'knowledge_rules',
  knowledge: 'knowledge_results',
  noKnowledge: 'no_knowledge',
  channel: 'channel',
} as const;

/** The bot's own prompt layer: the generated prompt of the pre-flight inject when present. */
export function botPromptText(bot: BotLike): string {
  const generated = bot.system_prompt_generated?.trim();
  return generated ? generated : bot.system_prompt.trim();
}

function strictnessLevel(value: number): 1 | 2 | 3 | 4 | 5 {
  const level = Math.round(Number.isFinite(value) ? value : 3);
  return Math.min(Math.max(level, 1), 5) as 1 | 2 | 3 | 4 | 5;
}

function industrySection(
  code: string,
  extra: Record<string, IndustryVocabulary> | undefined,
): string | undefined {
  const vocabulary = findIndustryVocabulary(code, extra);
  if (vocabulary) {
    const lines = [
      `## Branchenvokabular: ${inlineText(vocabulary.label)}`,
      `Verwende diese Begriffe: ${vocabulary.terms.map(inlineText).join('; ')}.`,
    ];
    if (vocabulary.note) lines.push(inlineText(vocabulary.note));
    return lines.join('\n');
  }
  const label = inlineText(code.replace(/[^\p{L}\p{N} _&/-]/gu, '').slice(0, 50));
  if (!label) return undefined;
  return `## Branchenvokabular: ${label}\nVerwende die in dieser Branche übliche Fachsprache und erkläre Fachbegriffe bei Bedarf kurz.`;
}

function knowledgeRules(hits: KnowledgeHit[]): string {
  const best = hits[0]!;
  // Hits are named by number only: a title is tenant text and stays inside the delimited
  // knowledge section, never in this protected part.
  const rules = [`- Treffer 1 passt am besten (score ${best.score.toFixed(2)}).`];
  if (hits.length > 1) {
    rules.push('- Widersprechen sich Treffer, gilt der Treffer mit der höheren Bewertung.');
  }
  if (hits.some((h) => h.botId === null) && hits.some((h) => h.botId !== null)) {
    rules.push('- Einträge dieses Bots gehen allgemeinen Einträgen des Unternehmens vor.');
  }
  if (hits.every((h) => h.score < MEDIUM_CONFIDENCE)) {
    rules.push(
      '- Alle Treffer haben nur geringe Übereinstimmung: prüfe genau, ob sie die Frage beantworten; sonst stelle eine Rückfrage oder biete die Übergabe an.',
    );
  } else if (best.score >= HIGH_CONFIDENCE) {
    rules.push('- Stütze die Antwort vor allem auf Treffer 1.');
  }
  hits.forEach((hit, i) => {
    if (hit.sourceUrl) {
      rules.push(
        `- Für weitere Details zu Treffer ${i + 1} darfst du auf ${inlineText(hit.sourceUrl)} verweisen.`,
      );
    }
  });
  // A real model gets every hit at or above the threshold (knowledge/answerability.ts gateFor):
  // it judges itself whether one answers, and says so with the no-answer marker.
  rules.push(
    `- Beantworte die Frage nur mit dem, was in diesen Treffern steht. Beantwortet keiner von ihnen die Frage, beginne deine Antwort mit ${NO_ANSWER_MARKER}.`,
  );
  rules.push('- Nenne in deiner Antwort keine Bewertungen, Trefferziffern oder internen Markierungen.');
  return `## Regeln zu den Wissenstreffern\n${rules.join('\n')}`;
}

function knowledgeBlock(hits: KnowledgeHit[]): string {
  const entries = hits.map((hit, i) => {
    const attributes = [
      `n="${i + 1}"`,
      `title="${escapeAttribute(hit.title)}"`,
      `score="${hit.score.toFixed(2)}"`,
    ];
    if (hit.sourceUrl) attributes.push(`source="${escapeAttribute(hit.sourceUrl)}"`);
    return wrap(TAG.entry, escapeText(hit.content.trim()), attributes.join(' '));
  });
  return `## Wissenstreffer\n${wrap(TAG.knowledge, entries.join('\n'))}`;
}

/**
 * Builds the system prompt in the specified order: security layer (unless skipped), the bot's
 * prompt, the nine behavioural rule groups, the strictness instruction, industry vocabulary,
 * the channel's writing instruction (SMS: keep it short), score-confidence rules and rules derived from the hits plus the hits themselves (or the
 * no-knowledge marker), then extra sections.
 */
export function assembleSystemPrompt(
  bot: BotLike,
  tenant: TenantLike,
  knowledgeHits: KnowledgeHit[],
  options: AssembleOptions,
): AssembledPrompt {
  const parts: { name: string; protected: boolean; text: string }[] = [];
  const add = (name: string, isProtected: boolean, text: string) =>
    parts.push({ name, protected: isProtected, text });

  if (options.securityLayer) add(SECTION.security, true, SECURITY_LAYER);
  const own = botPromptText(bot);
  if (own)
    add(SECTION.botPrompt, false, `## Bot-Anweisungen\n${wrap(TAG.botPrompt, neutraliseReservedTags(own))}`);
  add(SECTION.behaviorRules, true, BEHAVIOR_RULES);
  add(
    SECTION.strictness,
    true,
    `## Wissensbindung\n${STRICTNESS[strictnessLevel(bot.knowledge_strictness)]}`,
  );
  const industryCode = bot.industry_code?.trim() || tenant.industry_code?.trim();
  const industry = industryCode ? industrySection(industryCode, options.industryVocabularies) : undefined;
  if (industry) add(SECTION.industry, true, industry);
  const channelHint = options.channelHint?.trim();
  if (channelHint) add(SECTION.channel, true, channelHint);
  if (knowledgeHits.length > 0) {
    add(SECTION.confidence, true, SCORE_CONFIDENCE);
    add(SECTION.knowledgeRules, true, knowledgeRules(knowledgeHits));
    add(SECTION.knowledge, false, knowledgeBlock(knowledgeHits));
  } else {
    add(SECTION.noKnowledge, true, NO_KNOWLEDGE);
  }
  for (const extra of options.extraSections ?? []) {
    const text = extra.text.trim();
    if (text) add(extra.name, false, neutraliseReservedTags(text));
  }
  return {
    text: parts.map((p) => p.text).join('\n\n'),
    sections: parts.map(({ name, protected: isProtected }) => ({ name, protected: isProtected })),
  };
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** A user's text between its delimiters; the text itself cannot contain a tag. */
export function delimitUserText(text: string): string {
  return wrap(TAG.user, escapeText(text));
}

/**
 * The protection step for a direct model call. systemPrompt is the output of
 * assembleSystemPrompt, whose untrusted parts are already escaped. The system prompt goes inside
 * <system_instructions> with emoji control and form of address, every user turn (history and
 * the new message) escaped inside <user_message>, earlier assistant turns with the service's
 * delimiter tags neutralised, and a checkpoint restating the rules after the new message.
 */
export function protectForModel(input: {
  systemPrompt: string;
  history: ChatTurn[];
  userMessage: string;
  bot: BotLike;
}): { system: string; messages: ChatTurn[] } {
  const { bot } = input;
  const style = `## Stil\n${emojiRule(bot.emoji_usage)}\n${addressRule(bot.formal_address)}`;
  const system = wrap(TAG.system, `${input.systemPrompt.trim()}\n\n${style}`);
  const messages: ChatTurn[] = input.history.map((turn) =>
    turn.role === 'user'
      ? { role: 'user', content: delimitUserText(turn.content) }
      : { role: 'assistant', content: neutraliseReservedTags(turn.content) },
  );
  messages.push({
    role: 'user',
    content: `${delimitUserText(input.userMessage)}\n\n${wrap(
      TAG.checkpoint,
      checkpointText(bot.formal_address, bot.emoji_usage),
    )}`,
  });
  return { system, messages };
}
