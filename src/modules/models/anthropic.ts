import type Anthropic from '@anthropic-ai/sdk';
import { lazy } from '../../lazy.js';
import { incompleteStream, toModelFailure } from './failure.js';
import { guardedFetch } from './guard.js';
import type { ModelMessage, ModelProvider, ModelReply, ModelRequest, ModelStreamEvent } from './provider.js';
import { countPromptTokens, countTokens } from './tokens.js';

export interface AnthropicProviderOptions {
  baseUrl?: string;
  apiKey?: string;
  defaultModel: string;
  timeoutMs: number;
  maxTokens: number;
}

/**
 * The Messages API wants the conversation to open with the user and to alternate roles;
 * stored history does not always (e.g. two staff replies after a hand-over), so neighbours
 * of the same role are joined and a leading assistant turn is dropped.
 */
export function alternateRoles(messages: readonly ModelMessage[]): ModelMessage[] {
  const result: ModelMessage[] = [];
  for (const message of messages) {
    const last = result[result.length - 1];
    if (!last && message.role === 'assistant') continue;
    if (last && last.role === message.role) last.content = `${last.content}\n\n${message.content}`;
    else result.push({ role: message.role, content: message.content });
  }
  return result;
}

/** Anthropic Messages API through the official SDK; one retry, timeout per attempt. */
export function anthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const client = lazy(async (): Promise<Anthropic> => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    return new Anthropic({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? null,
      timeout: options.timeoutMs,
      maxRetries: 1,
      fetch: guardedFetch(options.timeoutMs),
    });
  });

  const body = (request: ModelRequest, model: string) => ({
    model,
    system: request.system,
    messages: alternateRoles(request.messages),
    max_tokens: request.maxTokens ?? options.maxTokens,
  });

  return {
    name: 'anthropic',
    async generate(request): Promise<ModelReply> {
      const model = request.model || options.defaultModel;
      try {
        const message = await (
          await client()
        ).messages.create(body(request, model), { signal: request.signal });
        const text = message.content
          .map((block) => (block.type === 'text' ? block.text : ''))
          .join('')
          .trim();
        return {
          text,
          model: message.model || model,
          promptTokens: message.usage?.input_tokens ?? countPromptTokens(request.system, request.messages),
          completionTokens: message.usage?.output_tokens ?? countTokens(text),
        };
      } catch (error) {
        throw toModelFailure(error, 'anthropic', request.signal);
      }
    },

    async *stream(request): AsyncGenerator<ModelStreamEvent> {
      const model = request.model || options.defaultModel;
      let text = '';
      let answeredBy = model;
      let inputTokens: number | undefined;
      let outputTokens: number | undefined;
      let finished = false;
      try {
        const events = await (
          await client()
        ).messages.create({ ...body(request, model), stream: true }, { signal: request.signal });
        for await (const event of events) {
          if (event.type === 'message_start') {
            answeredBy = event.message.model || model;
            inputTokens = event.message.usage?.input_tokens;
          } else if (event.type === 'message_delta') {
            outputTokens = event.usage?.output_tokens ?? outputTokens;
          } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            text += event.delta.text;
            yield { type: 'delta', text: event.delta.text };
          } else if (event.type === 'message_stop') {
            finished = true;
          }
        }
        // The SDK ends quietly when the request is aborted or the server just stops: only
        // message_stop makes the answer complete.
        if (!finished) throw incompleteStream('anthropic', 'message_stop', request.signal);
      } catch (error) {
        throw toModelFailure(error, 'anthropic', request.signal);
      }
      yield {
        type: 'done',
        reply: {
          text,
          model: answeredBy,
          promptTokens: inputTokens ?? countPromptTokens(request.system, request.messages),
          completionTokens: outputTokens ?? countTokens(text),
        },
      };
    },
  };
}
