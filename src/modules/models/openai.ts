import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { lazy } from '../../lazy.js';
import { incompleteStream, toModelFailure } from './failure.js';
import { guardedFetch } from './guard.js';
import type { ModelProvider, ModelReply, ModelRequest, ModelStreamEvent } from './provider.js';
import { countPromptTokens, countTokens } from './tokens.js';

export interface OpenAiProviderOptions {
  /** Any OpenAI-compatible server: OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp server. */
  baseUrl?: string;
  apiKey?: string;
  defaultModel: string;
  timeoutMs: number;
  maxTokens: number;
}

function toMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: request.system },
    ...request.messages.map((m) => ({ role: m.role, content: m.content })),
  ];
}

/** Chat completions through the official SDK: one retry on transient errors, a timeout per attempt. */
export function openAiProvider(options: OpenAiProviderOptions): ModelProvider {
  const client = lazy(async (): Promise<OpenAI> => {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({
      baseURL: options.baseUrl,
      // Local servers (Ollama, llama.cpp) need no key, but the SDK insists on one.
      apiKey: options.apiKey ?? 'not-required',
      timeout: options.timeoutMs,
      maxRetries: 1,
      fetch: guardedFetch(options.timeoutMs),
    });
  });

  const body = (request: ModelRequest, model: string) => ({
    model,
    messages: toMessages(request),
    max_tokens: request.maxTokens ?? options.maxTokens,
  });

  return {
    name: 'openai',
    async generate(request): Promise<ModelReply> {
      const model = request.model || options.defaultModel;
      try {
        const completion = await (
          await client()
        ).chat.completions.create(body(request, model), {
          signal: request.signal,
        });
        const text = completion.choices[0]?.message?.content ?? '';
        return {
          text,
          model: completion.model || model,
          promptTokens:
            completion.usage?.prompt_tokens ?? countPromptTokens(request.system, request.messages),
          completionTokens: completion.usage?.completion_tokens ?? countTokens(text),
        };
      } catch (error) {
        throw toModelFailure(error, 'openai', request.signal);
      }
    },

    async *stream(request): AsyncGenerator<ModelStreamEvent> {
      const model = request.model || options.defaultModel;
      let text = '';
      let answeredBy = model;
      let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
      let finished = false;
      try {
        const chunks = await (
          await client()
        ).chat.completions.create(
          { ...body(request, model), stream: true, stream_options: { include_usage: true } },
          { signal: request.signal },
        );
        for await (const chunk of chunks) {
          if (chunk.model) answeredBy = chunk.model;
          if (chunk.usage) usage = chunk.usage;
          const delta = chunk.choices[0]?.delta?.content;
          if (delta) {
            text += delta;
            yield { type: 'delta', text: delta };
          }
          if (chunk.choices[0]?.finish_reason) finished = true;
        }
        // The SDK ends quietly when the request is aborted or the server just stops: only a
        // finish_reason makes the answer complete.
        if (!finished) throw incompleteStream('openai', 'finish_reason', request.signal);
      } catch (error) {
        throw toModelFailure(error, 'openai', request.signal);
      }
      yield {
        type: 'done',
        reply: {
          text,
          model: answeredBy,
          promptTokens: usage?.prompt_tokens ?? countPromptTokens(request.system, request.messages),
          completionTokens: usage?.completion_tokens ?? countTokens(text),
        },
      };
    },
  };
}
