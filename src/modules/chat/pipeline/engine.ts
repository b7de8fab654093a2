/**
 * The conversation engine: the one path every inbound message takes, whatever channel it came
 * from and however its reply leaves.
 *
 *   admission  idempotency claim, then bot → active → conversation → hand-over → quota
 *              (one statement that reserves one message of the month's quota and reads the
 *              bot's flow, the conversation's flow state and its last messages)
 *   decision   the flow stage (flow/stage.ts: a flow step, block or option may answer with a
 *              fixed text or an interactive block), then the extensions' `decide` hook; a
 *              decided turn skips context and model
 *   context    knowledge and prompt, assembled with the history into the model request
 *   model      the whole reply (JSON body, channel) or a stream of deltas (SSE)
 *   finish     extensions rewrite the reply (tags → actions), the flow stage turns block tags
 *              into `blocks`, then one transaction stores the exchange with its actions, the
 *              flow's new position and the channel's outbox row
 *   fail       anything after admission gives back the reservation and the claim; a model
 *              outage or the deadline becomes the refusal `model_unavailable`
 *   refusals  typed (refusal.ts: EngineRefusal with a reason code); only the HTTP layer turns
 *              them into the chat's status and German text (http/chat-refusal.ts)
 *
 * Adapters (routes.ts, test-chat-routes.ts, channels) only authenticate, build the inbound
 * message and choose the output port (types.ts). Tracing and metrics wrap the stages from
 * outside through the observer; the stages know nothing of them.
 */
import type { AppContext } from '../../../shared/context.js';
import {
  noAnswerFilter,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
} from '../../models/index.js';
import { flowStage } from '../../flow/index.js';
import { asksForPerson, connectingReply } from '../../conversations/index.js';
import { decideReply } from '../extensions.js';
import { admit, chatDeadlineMs, type Admitted } from './admission.js';
import { EngineRefusal } from '../../../shared/refusal.js';
import { buildContext, turnOf } from './context.js';
import { fail, finish, type FinishOptions, type Turn } from './finish.js';
import {
  WHOLE_REPLY,
  type ChatOutcome,
  type ConverseOptions,
  type InboundMessage,
  type ReplyPort,
  type StageObserver,
  type StreamSink,
} from './types.js';

export { chatDeadlineMs };

/** The observer when nobody watches: every stage just runs. */
const UNOBSERVED: StageObserver = {
  stage: (_name, work) => work(),
  begin: () => undefined,
  end: () => undefined,
  modelChoice: undefined,
  tokens: () => undefined,
};

/**
 * The turn's signal: the client's (disconnect) combined with the turn's own deadline (a
 * TimeoutError), and `clear` for when the turn is over. One controller and a timer:
 * AbortSignal.any with AbortSignal.timeout cost about ten times as much CPU per chat.
 */
function withDeadline(ctx: AppContext, signal?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The chat request ran past its deadline', 'TimeoutError')),
    chatDeadlineMs(ctx),
  );
  timer.unref();
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}

/** How the reply comes about: decided without the model, or the model's request. */
type Answer =
  { kind: 'decided'; reply: ModelReply; actions: unknown[] } | { kind: 'model'; request: ModelRequest };

/** Decision, then (without one) context: what the turn will be answered from. */
async function prepare(
  ctx: AppContext,
  admitted: Admitted,
  signal: AbortSignal,
  observer: StageObserver,
): Promise<{ turn: Turn; answer: Answer }> {
  const chatTurn = turnOf(admitted);
  // The flow stage: a step, block or fixed reply of the bot's flow answers without the model.
  const flow = flowStage.before(chatTurn, admitted.rows, admitted.inbound.input.choice ?? null);
  if (flow.direct) {
    const reply = {
      text: flow.direct.reply,
      model: flowStage.FLOW_MODEL_NAME,
      promptTokens: 0,
      completionTokens: 0,
    };
    return {
      turn: { admitted, turn: chatTurn, hits: [], signal, flow },
      answer: { kind: 'decided', reply, actions: [] },
    };
  }
  // The customer asks for a person: the bot says it connects them and hands over.
  if (asksForPerson(chatTurn.userMessage)) {
    const reply = {
      text: connectingReply(chatTurn.userMessage, chatTurn.bot.formal_address),
      model: flowStage.FLOW_MODEL_NAME,
      promptTokens: 0,
      completionTokens: 0,
    };
    return {
      turn: { admitted, turn: chatTurn, hits: [], signal, flow, handover: 'customer_request' },
      answer: { kind: 'decided', reply, actions: [] },
    };
  }
  const decided = await decideReply(ctx.chatExtensions, chatTurn, ctx.db);
  if (decided) {
    const reply = { text: decided.text, model: decided.model, promptTokens: 0, completionTokens: 0 };
    return {
      turn: { admitted, turn: chatTurn, hits: [], signal, flow },
      answer: { kind: 'decided', reply, actions: decided.actions },
    };
  }
  const context = await buildContext(ctx, admitted, chatTurn, signal, observer.stage.bind(observer));
  observer.modelChoice = ctx.model.describe?.(context.modelRequest) ?? {
    provider: ctx.model.name,
    model: context.modelRequest.model || 'default',
  };
  return {
    turn: { admitted, turn: chatTurn, hits: context.hits, signal, flow },
    answer: { kind: 'model', request: context.modelRequest },
  };
}

/**
 * Runs one message through the pipeline and hands the reply to `port`. Resolves with the
 * response (also for a stream, after its `done`), or undefined when a stream ended with an
 * `error` event. Throws the chat's error for every failure a client can still be told about
 * with a status: all of them for the whole reply, those before the stream opened otherwise.
 */
export async function converse(
  ctx: AppContext,
  inbound: InboundMessage,
  port: ReplyPort,
  options: ConverseOptions = {},
): Promise<ChatOutcome | undefined> {
  const observer = options.observer ?? UNOBSERVED;
  const observe = observer.stage.bind(observer);
  const admission = await admit(ctx, inbound, observe);
  if (admission.kind === 'replay') {
    if (port.stream) {
      port.stream.replay(admission.response);
      port.stream.close();
    }
    return { response: admission.response, replayed: true };
  }
  const { admitted } = admission;
  const deadline = withDeadline(ctx, options.signal);
  try {
    return await run(ctx, admitted, deadline.signal, port, { ...options, observer });
  } finally {
    deadline.clear();
  }
}

/** Everything after admission, under the turn's signal. */
async function run(
  ctx: AppContext,
  admitted: Admitted,
  signal: AbortSignal,
  port: ReplyPort,
  options: ConverseOptions & { observer: StageObserver },
): Promise<ChatOutcome | undefined> {
  const { observer } = options;
  const observe = observer.stage.bind(observer);
  let prepared: { turn: Turn; answer: Answer };
  try {
    prepared = await prepare(ctx, admitted, signal, observer);
  } catch (error) {
    throw await fail(ctx, { admitted, signal }, error, options);
  }
  const { turn, answer } = prepared;
  const finishing: FinishOptions = { observe, delivery: port.delivery };
  if (port.stream) return streamed(ctx, turn, answer, port.stream, { ...options, finishing });
  try {
    const reply =
      answer.kind === 'decided'
        ? answer.reply
        : await observe('model', async () => ctx.model.generate(answer.request));
    observer.tokens(reply.promptTokens, reply.completionTokens, reply.model);
    // A client that went away (or a turn past its deadline) gets nothing stored and nothing charged.
    turn.signal.throwIfAborted();
    const decidedActions = answer.kind === 'decided' ? answer.actions : undefined;
    return { response: await finish(ctx, turn, reply, { ...finishing, decidedActions }), replayed: false };
  } catch (error) {
    throw await fail(ctx, turn, error, options);
  }
}

/** A decided reply as a stream: its text in one delta. */
async function* decidedStream(reply: ModelReply): AsyncGenerator<ModelStreamEvent> {
  yield { type: 'delta', text: reply.text };
  yield { type: 'done', reply };
}

/**
 * The model stage as a stream: the first event is awaited before the stream opens (a failure
 * until then is an ordinary error response); deltas go out as they come; the final event is
 * stored, then sent as `done`. A failure after the stream opened ends it with `error`.
 */
async function streamed(
  ctx: AppContext,
  turn: Turn,
  answer: Answer,
  sink: StreamSink,
  options: ConverseOptions & {
    observer: StageObserver;
    finishing: FinishOptions;
  },
): Promise<ChatOutcome | undefined> {
  const { observer } = options;
  let iterator: AsyncIterator<ModelStreamEvent>;
  let next: IteratorResult<ModelStreamEvent>;
  // The model stage runs from the call to the stream's final event.
  if (answer.kind === 'model') observer.begin('model');
  try {
    const events = answer.kind === 'decided' ? decidedStream(answer.reply) : ctx.model.stream(answer.request);
    iterator = events[Symbol.asyncIterator]();
    next = await iterator.next();
  } catch (error) {
    observer.end('model', undefined, error);
    throw await fail(ctx, turn, error, options);
  }

  sink.open();
  let stored = false;
  // The no-answer marker never reaches the customer, not even in a delta.
  const marker = noAnswerFilter();
  try {
    while (!next.done) {
      const event = next.value;
      if (event.type === 'delta') {
        const text = marker.push(event.text);
        if (text) sink.delta(text);
      } else {
        const rest = marker.flush();
        if (rest) sink.delta(rest);
        observer.end('model');
        observer.tokens(event.reply.promptTokens, event.reply.completionTokens, event.reply.model);
        // The client left (or the deadline passed) while the model finished: nothing is stored.
        turn.signal.throwIfAborted();
        const decidedActions = answer.kind === 'decided' ? answer.actions : undefined;
        const response = await finish(ctx, turn, event.reply, { ...options.finishing, decidedActions });
        stored = true;
        sink.done(response);
        return { response, replayed: false };
      }
      next = await iterator.next();
    }
    throw new Error('model stream ended without a final event');
  } catch (caught) {
    observer.end('model', undefined, caught);
    const error = await fail(ctx, turn, caught, { ...options, stored });
    if (!(error instanceof EngineRefusal) && !options.signal?.aborted) {
      options.log?.error({ err: error }, 'chat stream failed');
    }
    sink.fail(error);
    return undefined;
  } finally {
    sink.close();
  }
}

/** The whole reply (JSON body, scripts): converse with no stream and no channel. */
export async function answer(
  ctx: AppContext,
  inbound: InboundMessage,
  options: ConverseOptions = {},
): Promise<ChatOutcome> {
  const outcome = await converse(ctx, inbound, WHOLE_REPLY, options);
  // Without a stream every failure is thrown, so there is always an outcome.
  if (!outcome) throw new Error('a whole reply ended without an outcome');
  return outcome;
}
