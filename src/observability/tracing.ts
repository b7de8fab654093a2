/**
 * OpenTelemetry tracing of the chat, off unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
 * traces-specific endpoint) is set. The SDK is imported only then, on the first chat request
 * (`otel-sdk.ts`), so a deployment without tracing never loads it.
 *
 * A chat request is recorded while it runs (chat-trace.ts: stage start and end times, errors,
 * tokens) and becomes one trace when its response is finished: a server span for the request
 * with one child span per stage. What goes into spans is listed here, as plain data: ids,
 * outcome, status, timings, provider, model names and token counts — never message text,
 * prompts, replies, headers or keys.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { lazy } from '../lazy.js';
import type { ChatTraceRecord } from './trace-records.js';

/** Longest wait for the last spans at shutdown: an unreachable collector must not hold it up. */
export const TRACING_SHUTDOWN_LIMIT_MS = 5000;

export interface TracingHandle {
  /** The service log, for export failures (attached once the app's logger exists). */
  attachLog(log: Pick<FastifyBaseLogger, 'warn' | 'error'>): void;
  /** Turns a finished chat request into a trace; the SDK is started with the first one. */
  exportChat(record: ChatTraceRecord): void;
  /** Sends the spans of the requests finished so far (tests, before reading the collector). */
  flush(): Promise<void>;
  /** Sends the spans still buffered and stops the exporter, if it was started. */
  shutdown(): Promise<void>;
}

/** Tracing of the deployment, or null when no OTLP endpoint is configured. */
export function tracingFor(config: Config): TracingHandle | null {
  const { endpoint, serviceName } = config.tracing;
  if (!endpoint) return null;
  let log: Pick<FastifyBaseLogger, 'warn' | 'error'> | undefined;
  let started = false;
  let failed = false;
  const get = lazy(async () => {
    started = true;
    const { startChatTracing } = await import('./otel-sdk.js');
    return startChatTracing({ endpoint, serviceName, log });
  });
  return {
    attachLog(logger) {
      log = logger;
    },
    exportChat(record) {
      get().then(
        (tracing) => tracing.exportChat(record),
        (error: unknown) => {
          if (failed) return;
          failed = true;
          log?.error({ err: error }, 'tracing could not be started: chat requests are not traced');
        },
      );
    },
    async flush() {
      if (started) await get().then((tracing) => tracing.flush());
    },
    async shutdown() {
      if (!started) return;
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TRACING_SHUTDOWN_LIMIT_MS);
      });
      const flushed = get().then(
        (tracing) => tracing.shutdown(),
        () => undefined,
      );
      await Promise.race([flushed.catch(() => undefined), limit]);
      clearTimeout(timer);
    },
  };
}
