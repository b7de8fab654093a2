/**
 * Time limits the provider SDKs do not enforce themselves. Both SDKs time an attempt only
 * until the response headers arrive; a server that then stalls (before the JSON body, or
 * between two streamed events) would hold the request, its quota reservation and its
 * idempotency claim for ever. The SDKs are given this fetch instead of the global one:
 *
 * - before the headers, and for the whole of a JSON response: `timeoutMs` from the start of
 *   the attempt;
 * - for an event stream: at most `timeoutMs` between two chunks (the timer restarts with every
 *   chunk, so a long answer that keeps flowing is not cut).
 *
 * The SDKs keep their retry rules: a stall before the headers is retried like their own
 * timeout. The error is deliberately not an `AbortError`: both SDKs end a stream quietly on
 * one of those, which made a stalled stream look complete.
 */
export class ModelStalledError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`model server sent nothing for ${timeoutMs} ms`);
    this.name = 'ModelStalledError';
  }
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function guardedFetch(timeoutMs: number, base: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    const stall = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, stall.signal]) : stall.signal;
    let timer = setTimeout(() => stall.abort(new ModelStalledError(timeoutMs)), timeoutMs);
    const restart = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stall.abort(new ModelStalledError(timeoutMs)), timeoutMs);
    };
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      throw stall.signal.aborted ? stall.signal.reason : error;
    }
    if (!response.body) {
      clearTimeout(timer);
      return response;
    }
    const streaming = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            clearTimeout(timer);
            controller.close();
            return;
          }
          if (streaming) restart();
          controller.enqueue(value);
        } catch (error) {
          clearTimeout(timer);
          controller.error(stall.signal.aborted ? stall.signal.reason : error);
        }
      },
      async cancel(reason) {
        clearTimeout(timer);
        await reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
