/**
 * Context: what the model is given for one turn — the conversation's history, the knowledge
 * hits the answerability decision keeps, and the system prompt (the bot's, the tenant's
 * industry, the extensions' sections) — assembled into one model request.
 */
import type { AppContext } from '../../../shared/context.js';
import { observeKnowledgeSearch } from '../../../observability/metrics.js';
import { type KnowledgeHit, searchForAnswer, gatedHits, gateFor } from '../../knowledge/index.js';
import type { ModelRequest } from '../../models/index.js';
import { channelOf } from '../../channels/index.js';
import { assembleSystemPrompt, protectForModel } from '../../prompt/index.js';
import { collectPromptSections, type ChatTurn } from '../extensions.js';
import type { Admitted } from './admission.js';
import type { StageObserver } from './types.js';

export const KNOWLEDGE_LIMIT = 3;

/** The turn as extensions see it. */
export function turnOf(admitted: Admitted): ChatTurn {
  const { inbound, bot } = admitted;
  return {
    tenantId: inbound.tenantId,
    bot,
    conversationId: admitted.conversationId,
    isNewConversation: admitted.isNewConversation,
    channel: inbound.input.channel,
    senderId: inbound.input.senderId,
    metadata: inbound.input.metadata,
    userMessage: inbound.input.message,
  };
}

export interface TurnContext {
  hits: KnowledgeHit[];
  modelRequest: ModelRequest;
}

/** Loads history, knowledge and prompt sections side by side, then assembles the model request. */
export async function buildContext(
  ctx: AppContext,
  admitted: Admitted,
  turn: ChatTurn,
  signal: AbortSignal,
  observe: StageObserver['stage'],
): Promise<TurnContext> {
  const { bot, inbound } = admitted;
  const message = inbound.input.message;
  const minScore = bot.knowledge_min_score ?? ctx.config.knowledge.minScore;
  // The history came with the admission statement.
  const history = admitted.rows.history;
  // One gate per kind of model (knowledge/answerability.ts gateFor): the offline answerer gets the
  // hits the answerability decision keeps, a real model every hit at or above the minimum score.
  const gate = gateFor(ctx.model.describe?.({ model: bot.model }).provider ?? ctx.model.name);
  const [hits, extraSections] = await Promise.all([
    observe('knowledge', () =>
      observeKnowledgeSearch(
        searchForAnswer(ctx.db, inbound.tenantId, {
          botId: bot.id,
          query: message,
          limit: KNOWLEDGE_LIMIT,
          minScore,
          embeddings: ctx.embeddings,
          vocabularyVersion: bot.knowledge_vocabulary_version,
        }).then((found) => gatedHits(gate, found, minScore)),
      ),
    ),
    collectPromptSections(ctx.chatExtensions, turn, ctx.db),
  ]);
  const modelRequest = await observe('prompt', async () => {
    const systemPrompt = assembleSystemPrompt(bot, { industry_code: bot.tenant_industry_code }, hits, {
      securityLayer: ctx.config.prompt.securityLayer,
      extraSections,
      channelHint: channelOf(inbound.input.channel).promptHint,
    });
    const forModel = protectForModel({ systemPrompt: systemPrompt.text, history, userMessage: message, bot });
    return {
      model: bot.model,
      system: forModel.system,
      messages: forModel.messages,
      grounding: {
        userMessage: message,
        knowledge: hits.map((h) => ({ title: h.title, content: h.content, score: h.score })),
        formalAddress: bot.formal_address,
      },
      maxTokens: ctx.config.model.maxTokens,
      signal,
    } satisfies ModelRequest;
  });
  return { hits, modelRequest };
}
