import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, testConfig } from '../../src/config.js';
import { ModelUnavailableError } from '../../src/modules/models/provider.js';
import { stageSpanName } from '../../src/observability/otel-sdk.js';
import { startApp, stopApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/db.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { addKnowledge, RecordingModel, useModel } from '../chat/fixtures.js';
import { parseSse, sendChat } from '../chat/helpers.js';
import { OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { waitFor } from '../helpers/net.js';

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;
const ROOT_NAME = 'POST /api/bot-chat/:botId/chat';

/** A W3C traceparent of a caller, with a fresh trace id and parent span id. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
}

/** Flushes until the trace's root span has arrived (spans are made after the response). */
async function traceOf(t: TestApp, receiver: OtlpReceiver, traceId: string): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  await waitFor(
    async () => {
      await t.ctx.tracing?.flush();
      spans = receiver.trace(traceId);
      return spans.some((s) => s.kind === SPAN_KIND_SERVER);
    },
    5000,
    `the root span of trace ${traceId}`,
  );
  return spans;
}

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, `one span named ${name}`).toHaveLength(1);
  return found[0]!;
}

describeEachBackend('chat tracing (OpenTelemetry)', (get) => {
  const receiver = new OtlpReceiver();
  let t: TestApp;
  let tenant: TenantFixture;

  beforeAll(async () => {
    await receiver.start();
    t = await startApp(get(), {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'parley-under-test' },
    });
    tenant = await buildTenant(t.ctx);
  });
  afterAll(async () => {
    await stopApp(t);
    await t.ctx.tracing?.shutdown();
    await receiver.stop();
  });

  it('makes one trace per chat request: a server span continuing the caller, one child per stage', async () => {
    const bot = await tenant.bot({ system_prompt: 'Vertrauliche Anweisung Zitronenfalter.' });
    await addKnowledge(t.ctx, tenant.id, bot.id, {
      title: 'Öffnungszeiten',
      content: 'Wir haben montags bis freitags von 9 bis 17 Uhr geöffnet.',
    });
    const first = await sendChat(t, tenant, bot.id, {
      message: 'Wann habt ihr geöffnet? Kennwort Seepferdchen',
    });
    expect(first.statusCode).toBe(200);
    const conversationId = (first.json() as { conversation_id: string }).conversation_id;

    const caller = callerContext();
    const message = 'Und am Samstag? Geheimwort Wolkenkratzer';
    const res = await sendChat(
      t,
      tenant,
      bot.id,
      { message, conversation_id: conversationId },
      { traceparent: caller.header, 'idempotency-key': `trace-${caller.traceId}` },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json() as { reply: string; tokens_used: number };

    const spans = await traceOf(t, receiver, caller.traceId);
    const root = byName(spans, ROOT_NAME);
    expect(root.kind).toBe(SPAN_KIND_SERVER);
    expect(root.parentSpanId).toBe(caller.parentId);
    expect(root.resource['service.name']).toBe('parley-under-test');
    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/bot-chat/:botId/chat',
      'http.response.status_code': 200,
      'parley.tenant_id': tenant.id,
      'parley.bot_id': bot.id,
      'parley.chat.outcome': 'ok',
    });
    expect(root.status.code ?? 0).not.toBe(STATUS_ERROR);

    const stages = ['auth', 'admission', 'knowledge', 'prompt', 'model', 'reply', 'store'];
    for (const stage of stages) expect(byName(spans, `chat.${stage}`).parentSpanId).toBe(root.spanId);
    const admission = byName(spans, 'chat.admission');
    for (const step of ['rate_limit', 'idempotency', 'quota']) {
      expect(byName(spans, `chat.admission.${step}`).parentSpanId).toBe(admission.spanId);
    }
    expect(spans).toHaveLength(1 + stages.length + 3);
    for (const span of spans) {
      expect(span.endNs).toBeGreaterThanOrEqual(span.startNs);
      if (span !== root) {
        expect(span.startNs).toBeGreaterThanOrEqual(root.startNs);
        expect(span.endNs).toBeLessThanOrEqual(root.endNs);
      }
    }

    const model = byName(spans, 'chat.model');
    expect(model.kind).toBe(SPAN_KIND_CLIENT);
    expect(model.attributes['gen_ai.provider.name']).toBe('offline');
    expect(model.attributes['gen_ai.request.model']).toEqual(expect.any(String));
    const tokensIn = model.attributes['gen_ai.usage.input_tokens'] as number;
    const tokensOut = model.attributes['gen_ai.usage.output_tokens'] as number;
    expect(tokensIn).toBeGreaterThan(0);
    expect(tokensOut).toBeGreaterThan(0);
    expect(tokensIn + tokensOut).toBe(body.tokens_used);

    // Nothing the caller wrote, the bot's prompt, the reply or the key is in any export.
    const exported = receiver.bodies.join('\n');
    for (const secret of [
      'Seepferdchen',
      'Wolkenkratzer',
      'Zitronenfalter',
      'montags bis freitags',
      body.reply,
      tenant.apiKey,
      tenant.apiKey.slice(0, 12),
    ]) {
      expect(exported).not.toContain(secret);
    }
  });

  it('marks the model span and the request span as failed when the model is unavailable', async () => {
    const bot = await tenant.bot();
    const model = new RecordingModel();
    model.answer = () => Promise.reject(new ModelUnavailableError('upstream said no', 'recording', 7));
    const restore = useModel(t.ctx, model);
    const caller = callerContext();
    try {
      const res = await sendChat(t, tenant, bot.id, { message: 'Hallo' }, { traceparent: caller.header });
      expect(res.statusCode).toBe(503);
    } finally {
      restore();
    }
    const spans = await traceOf(t, receiver, caller.traceId);
    const root = byName(spans, ROOT_NAME);
    expect(root.status.code).toBe(STATUS_ERROR);
    expect(root.attributes).toMatchObject({
      'http.response.status_code': 503,
      'parley.chat.outcome': 'model_unavailable',
    });
    const modelSpan = byName(spans, 'chat.model');
    expect(modelSpan.status.code).toBe(STATUS_ERROR);
    expect(modelSpan.attributes).toMatchObject({
      'error.type': 'ModelUnavailableError',
      'gen_ai.provider.name': 'recording',
    });
    expect(modelSpan.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    // Stages after the model did not run; the provider's message is not exported.
    expect(spans.map((s) => s.name)).not.toContain('chat.store');
    expect(receiver.bodies.join('\n')).not.toContain('upstream said no');
  });

  it('traces a streamed chat the same way, the model span lasting until the final event', async () => {
    const bot = await tenant.bot();
    const caller = callerContext();
    const res = await sendChat(
      t,
      tenant,
      bot.id,
      { message: 'Streaming bitte, Losung Fischotter' },
      { traceparent: caller.header, accept: 'text/event-stream' },
    );
    expect(res.statusCode).toBe(200);
    expect(parseSse(res.body).map((e) => e.event)).toContain('done');
    const spans = await traceOf(t, receiver, caller.traceId);
    const root = byName(spans, ROOT_NAME);
    expect(root.attributes['parley.chat.outcome']).toBe('ok');
    const model = byName(spans, 'chat.model');
    expect(model.parentSpanId).toBe(root.spanId);
    expect(model.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(byName(spans, 'chat.store').startNs).toBeGreaterThanOrEqual(model.endNs);
    expect(receiver.bodies.join('\n')).not.toContain('Fischotter');
  });

  it('starts a new trace when the caller sends none, and traces refusals without marking them failed', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const before = receiver.spans.length;
    const res = await sendChat(t, tenant, missing, { message: 'Hallo' });
    expect(res.statusCode).toBe(404);
    await t.ctx.tracing?.flush();
    let root: ReceivedSpan | undefined;
    await waitFor(
      async () => {
        await t.ctx.tracing?.flush();
        root = receiver.spans
          .slice(before)
          .find((s) => s.name === ROOT_NAME && s.attributes['parley.bot_id'] === missing);
        return root !== undefined;
      },
      5000,
      'the root span of the refused chat',
    );
    expect(root?.parentSpanId).toBeUndefined();
    expect(root?.attributes['parley.chat.outcome']).toBe('bot_not_found');
    expect(root?.status.code ?? 0).not.toBe(STATUS_ERROR);
  });

  it('traces the dashboard test chat with the session as its auth stage', async () => {
    const bot = await tenant.bot();
    const caller = callerContext();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/bots/${bot.id}/test-chat`,
      headers: { ...tenant.owner.headers, 'content-type': 'application/json', traceparent: caller.header },
      payload: { message: 'Test aus dem Dashboard' },
    });
    expect(res.statusCode).toBe(200);
    const spans = await traceOf(t, receiver, caller.traceId);
    const root = byName(spans, 'POST /api/bots/:id/test-chat');
    expect(root.attributes).toMatchObject({ 'parley.tenant_id': tenant.id, 'parley.bot_id': bot.id });
    expect(byName(spans, 'chat.auth').parentSpanId).toBe(root.spanId);
    expect(byName(spans, 'chat.model').attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(receiver.bodies.join('\n')).not.toContain(tenant.owner.token);
  });
});

describeEachBackend('chat tracing switched off', (get) => {
  it('creates no tracer and sends nothing without an OTLP endpoint', async () => {
    const receiver = await new OtlpReceiver().start();
    const t = await startApp(get());
    let stopped = false;
    try {
      expect(t.ctx.tracing).toBeNull();
      const tenant = await buildTenant(t.ctx);
      const bot = await tenant.bot();
      const res = await sendChat(
        t,
        tenant,
        bot.id,
        { message: 'Hallo' },
        { traceparent: callerContext().header },
      );
      expect(res.statusCode).toBe(200);
      // Once the app has shut down, an exporter would have sent all it held: nothing was sent.
      await stopApp(t);
      stopped = true;
      expect(receiver.paths).toEqual([]);
    } finally {
      if (!stopped) await stopApp(t);
      await receiver.stop();
    }
  });
});

describe('tracing configuration', () => {
  it('is off by default and with OTEL_SDK_DISABLED', () => {
    expect(testConfig().tracing).toEqual({ endpoint: undefined, serviceName: 'parley' });
    expect(
      testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing
        .endpoint,
    ).toBeUndefined();
  });

  it('appends /v1/traces to the general endpoint and takes the traces endpoint as given', () => {
    expect(testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.endpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      testConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.test/otlp',
        OTEL_SERVICE_NAME: 'parley-eu',
      }).tracing,
    ).toEqual({ endpoint: 'https://traces.example.test/otlp', serviceName: 'parley-eu' });
  });

  it('refuses an endpoint that is not http(s) and a protocol other than http/json', () => {
    expect(() => testConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(ConfigError);
    expect(() =>
      testConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/http\/json/);
  });

  it('names the spans of the stages', () => {
    expect(stageSpanName({ stage: 'model' })).toBe('chat.model');
    expect(stageSpanName({ stage: 'admission', step: 'quota' })).toBe('chat.admission.quota');
  });
});
