import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { anthropicProvider } from '../../src/modules/models/anthropic.js';
import { createModelProvider } from '../../src/modules/models/index.js';
import { openAiProvider } from '../../src/modules/models/openai.js';
import {
  ModelUnavailableError,
  collectStream,
  type ModelRequest,
} from '../../src/modules/models/provider.js';
import { FakeModelServer } from '../chat/fake-model-server.js';

const request: ModelRequest = {
  system: 'Systemanweisungen',
  messages: [
    { role: 'assistant', content: 'Willkommen!' },
    { role: 'user', content: 'Hallo' },
  ],
  grounding: { userMessage: 'Hallo', knowledge: [], formalAddress: true },
};

describe('model providers against a local fake server', () => {
  const server = new FakeModelServer();
  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.queue = [];
  });

  it('Anthropic: generate sends system, alternating messages and the key', async () => {
    const provider = anthropicProvider({
      baseUrl: server.url,
      apiKey: 'ak-test',
      defaultModel: 'claude-test',
      timeoutMs: 2000,
      maxTokens: 256,
    });
    server.queue = [{ kind: 'reply', text: 'Guten Tag!' }];
    const reply = await provider.generate(request);
    expect(reply).toEqual({
      text: 'Guten Tag!',
      model: 'claude-test',
      promptTokens: 13,
      completionTokens: 5,
    });
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    // This SDK generation sends the key as a bearer token; older ones used x-api-key.
    expect(String(sent.headers['x-api-key'] ?? sent.headers.authorization)).toContain('ak-test');
    expect(sent.body).toMatchObject({
      model: 'claude-test',
      system: 'Systemanweisungen',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hallo' }],
    });
  });

  it('Anthropic: streams text deltas and reports usage', async () => {
    const provider = anthropicProvider({
      baseUrl: server.url,
      apiKey: 'ak',
      defaultModel: 'c',
      timeoutMs: 2000,
      maxTokens: 64,
    });
    server.queue = [{ kind: 'reply', text: 'Eins zwei drei' }];
    const deltas: string[] = [];
    for await (const event of provider.stream({ ...request, model: 'claude-override' })) {
      if (event.type === 'delta') deltas.push(event.text);
      else
        expect(event.reply).toEqual({
          text: 'Eins zwei drei',
          model: 'claude-override',
          promptTokens: 13,
          completionTokens: 5,
        });
    }
    expect(deltas).toEqual(['Eins ', 'zwei ', 'drei']);
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  it('OpenAI-compatible: a client error is not retried and becomes ModelUnavailableError', async () => {
    const provider = openAiProvider({
      baseUrl: `${server.url}/v1`,
      defaultModel: 'm',
      timeoutMs: 2000,
      maxTokens: 64,
    });
    server.queue = [{ kind: 'error', status: 400 }];
    const error = await provider.generate(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).message).toContain('HTTP 400');
    expect(server.requests).toHaveLength(1);
  });

  it('OpenAI-compatible: 429 is retried once and the provider’s Retry-After is kept', async () => {
    const provider = openAiProvider({
      baseUrl: `${server.url}/v1`,
      defaultModel: 'm',
      timeoutMs: 2000,
      maxTokens: 64,
    });
    server.queue = [
      { kind: 'error', status: 429, retryAfter: '1' },
      { kind: 'error', status: 429, retryAfter: '1' },
    ];
    const error = (await provider.generate(request).catch((e: unknown) => e)) as ModelUnavailableError;
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.retryAfterSeconds).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('OpenAI-compatible: a stream is collected into one reply with the server’s usage', async () => {
    const provider = openAiProvider({
      baseUrl: `${server.url}/v1`,
      defaultModel: 'm',
      timeoutMs: 2000,
      maxTokens: 64,
    });
    server.queue = [
      { kind: 'reply', text: 'Alles klar.', usage: { prompt_tokens: 40, completion_tokens: 3 } },
    ];
    expect(await collectStream(provider.stream(request))).toEqual({
      text: 'Alles klar.',
      model: 'm',
      promptTokens: 40,
      completionTokens: 3,
    });
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('the deployment provider routes per bot and refuses an unconfigured provider clearly', async () => {
    const provider = createModelProvider(
      testConfig({
        MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: `${server.url}/v1`,
        MODEL_NAME: 'deploy-model',
      }).model,
    );
    await provider.generate(request);
    expect(server.requests.at(-1)!.body.model).toBe('deploy-model');
    await provider.generate({ ...request, model: 'other-model' });
    expect(server.requests.at(-1)!.body.model).toBe('other-model');
    expect((await provider.generate({ ...request, model: 'offline' })).model).toMatch(/offline/);
    await expect(provider.generate({ ...request, model: 'anthropic:claude' })).rejects.toBeInstanceOf(
      ModelUnavailableError,
    );
    expect(() => provider.stream({ ...request, model: 'anthropic' })).toThrow(ModelUnavailableError);
  });
});
