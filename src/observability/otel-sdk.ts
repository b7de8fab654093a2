/**
 * The OpenTelemetry SDK, imported only when tracing is configured (tracing.ts): a tracer
 * provider of its own (no global registration, no auto-instrumentation), the OTLP/HTTP JSON
 * exporter behind a batch processor, and W3C trace-context extraction so a caller's trace
 * continues. Spans are built from a finished chat request's record with its recorded times.
 */
import { readFileSync } from 'node:fs';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  diag,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatTraceRecord, ChatTracing, StageRecord } from './trace-records.js';

/*
 * Generative-AI attributes of the semantic conventions. They are still "incubating", whose
 * constants the conventions package asks to copy rather than import.
 */
const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';

const SCOPE = 'parley.chat';
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface ChatTracingOptions {
  /** Full URL of the OTLP/HTTP traces endpoint (…/v1/traces). */
  endpoint: string;
  serviceName: string;
  /** Where export failures are reported (one line each, no span contents). */
  log?: Pick<FastifyBaseLogger, 'warn'>;
}

/** Span name of each stage; admission steps are children of the admission span. */
export function stageSpanName(record: Pick<StageRecord, 'stage' | 'step'>): string {
  return record.step ? `chat.admission.${record.step}` : `chat.${record.stage}`;
}

export function startChatTracing(options: ChatTracingOptions): ChatTracing {
  if (options.log) routeDiagnostics(options.log);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.serviceName,
      [ATTR_SERVICE_VERSION]: VERSION,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint }))],
  });
  const tracer = provider.getTracer(SCOPE, VERSION);
  const propagator = new W3CTraceContextPropagator();
  return {
    exportChat(record) {
      exportChatTrace(tracer, propagator, record);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** Export failures go to the service log at warn level; the SDK's chatter below it does not. */
function routeDiagnostics(log: Pick<FastifyBaseLogger, 'warn'>): void {
  const warn = (message: string) => log.warn({ component: 'tracing' }, message);
  diag.setLogger(
    {
      error: warn,
      warn,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { suppressOverrideMessage: true },
  );
}

function parentContext(propagator: W3CTraceContextPropagator, record: ChatTraceRecord): Context {
  if (!record.traceparent) return ROOT_CONTEXT;
  const carrier: Record<string, string> = { traceparent: record.traceparent };
  if (record.tracestate) carrier.tracestate = record.tracestate;
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

function exportChatTrace(
  tracer: Tracer,
  propagator: W3CTraceContextPropagator,
  record: ChatTraceRecord,
): void {
  const rootAttributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: record.method,
    [ATTR_HTTP_ROUTE]: record.route,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: record.statusCode,
    'parley.chat.outcome': record.outcome,
  };
  if (record.tenantId) rootAttributes['parley.tenant_id'] = record.tenantId;
  if (record.botId) rootAttributes['parley.bot_id'] = record.botId;
  if (record.model?.tokensIn !== undefined)
    rootAttributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = record.model.tokensIn;
  if (record.model?.tokensOut !== undefined)
    rootAttributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = record.model.tokensOut;
  const root = tracer.startSpan(
    `${record.method} ${record.route}`,
    { kind: SpanKind.SERVER, startTime: record.startMs, attributes: rootAttributes },
    parentContext(propagator, record),
  );
  if (record.failed) {
    root.setAttribute(ATTR_ERROR_TYPE, record.outcome);
    root.setStatus({ code: SpanStatusCode.ERROR });
  }
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);

  const admission = record.stages.filter((s) => s.stage === 'admission');
  let admissionContext = inRoot;
  if (admission.length > 0) {
    const span = tracer.startSpan(
      'chat.admission',
      { startTime: Math.min(...admission.map((s) => s.startMs)) },
      inRoot,
    );
    markError(
      span,
      admission.find((s) => s.errorType),
    );
    span.end(Math.max(...admission.map((s) => s.endMs)));
    admissionContext = trace.setSpan(ROOT_CONTEXT, span);
  }
  for (const stage of record.stages) {
    if (stage.stage === 'admission' && !stage.step) continue;
    const isModel = stage.stage === 'model';
    const span = tracer.startSpan(
      stageSpanName(stage),
      {
        kind: isModel ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: stage.startMs,
        attributes: isModel ? modelAttributes(record) : undefined,
      },
      stage.step ? admissionContext : inRoot,
    );
    markError(span, stage);
    span.end(stage.endMs);
  }
  root.end(record.endMs);
}

function modelAttributes(record: ChatTraceRecord): Attributes {
  const model = record.model;
  if (!model) return {};
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
    [ATTR_GEN_AI_PROVIDER_NAME]: model.provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: model.model,
  };
  if (model.responseModel) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = model.responseModel;
  if (model.tokensIn !== undefined) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = model.tokensIn;
  if (model.tokensOut !== undefined) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = model.tokensOut;
  return attributes;
}

/** A failed stage: error status and the error's class name, never its message. */
function markError(span: Span, stage: Pick<StageRecord, 'errorType'> | undefined): void {
  if (!stage?.errorType) return;
  span.setAttribute(ATTR_ERROR_TYPE, stage.errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}
