/**
 * The widget's limits. Per minute, per visitor, address and publishable key: counted in the
 * shared store (Redis when configured) before a request's body is read, with the RateLimit-*
 * headers of the tightest one and 429 with Retry-After when one is exceeded — request limits of
 * the HTTP endpoint. Per day, the bot's budget of visitor messages: a channel guard of the
 * conversation engine's admission (chat/pipeline/guards.ts), refused as `budget_exhausted`
 * (429 with the specification's text, Retry-After until UTC midnight).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { secondsToMidnightUtc } from '../../http/chat-refusal.js';
import { rateLimitRefusals } from '../../observability/metrics.js';
import { PASS, type ChannelGuard } from '../chat/pipeline/guards.js';
import { visitorOf } from './access.js';
import * as repo from './repository.js';

const WINDOW_MS = 60_000;

type LimitName = 'visitor' | 'ip' | 'key';

export interface Limit {
  name: LimitName;
  max: number;
  check: ReturnType<FastifyInstance['createRateLimit']>;
}

function tooMany(name: LimitName, max: number, retryAfter: number): AppError {
  rateLimitRefusals.inc({ limit: `widget_${name}` });
  const who = { visitor: 'Besucher', ip: 'Adresse', key: 'Widget' }[name];
  return new AppError(
    429,
    ErrorCode.rateLimited,
    `Zu viele Anfragen: höchstens ${max} Anfragen pro Minute und ${who} erlaubt. Bitte kurz warten (siehe Retry-After).`,
    {
      details: { limit: name, max },
      headers: { 'retry-after': String(retryAfter), 'ratelimit-policy': `${max};w=60` },
    },
  );
}

/**
 * Counts the request against each limit and sets the RateLimit-* headers of the tightest one;
 * the first limit exceeded answers 429 with Retry-After.
 */
async function applyLimits(request: FastifyRequest, reply: FastifyReply, limits: Limit[]): Promise<void> {
  let tightest: { max: number; remaining: number; reset: number } | undefined;
  for (const limit of limits) {
    const result = await limit.check(request);
    if (result.isAllowed) continue;
    if (result.isExceeded) {
      reply.header('ratelimit-limit', result.max);
      reply.header('ratelimit-remaining', 0);
      reply.header('ratelimit-reset', result.ttlInSeconds);
      throw tooMany(limit.name, result.max, Math.max(1, result.ttlInSeconds));
    }
    if (!tightest || result.remaining < tightest.remaining) {
      tightest = { max: result.max, remaining: result.remaining, reset: result.ttlInSeconds };
    }
  }
  if (tightest) {
    reply.header('ratelimit-limit', tightest.max);
    reply.header('ratelimit-remaining', tightest.remaining);
    reply.header('ratelimit-reset', tightest.reset);
  }
}

/** The per-minute limits of the widget's routes, and `run` to count a request against some. */
export function widgetLimits(app: FastifyInstance, ctx: AppContext) {
  const limits = ctx.config.widget;
  const limit = (name: LimitName, max: number, keyOf: (request: FastifyRequest) => string): Limit => ({
    name,
    max,
    check: app.createRateLimit({
      max,
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => `widget:${name}:${keyOf(request)}`,
    }),
  });
  return {
    byIp: limit('ip', limits.rateLimitIp, (r) => r.ip),
    byVisitor: limit('visitor', limits.rateLimitVisitor, (r) => {
      const { claims } = visitorOf(r);
      return `${claims.bot_id}:${claims.visitor_id}`;
    }),
    byKeyOfVisitor: limit('key', limits.rateLimitKey, (r) => visitorOf(r).settings.publishable_key),
    byKeyOfBody: limit('key', limits.rateLimitKey, (r) =>
      String((r.body as { publishable_key?: unknown }).publishable_key),
    ),
    run: (request: FastifyRequest, reply: FastifyReply, ...checks: Limit[]) =>
      applyLimits(request, reply, checks),
  };
}

/**
 * The bot's daily budget of widget messages (a channel guard): each visitor message that passes
 * is counted; when the budget is used up, refused until UTC midnight.
 */
export const widgetBudgetGuard: ChannelGuard = {
  name: 'widget_budget',
  async check(ctx, inbound) {
    const widget = inbound.facts?.widget;
    if (!widget || (await repo.countDailyMessage(ctx.db, inbound.botId, widget.dailyBudget))) return PASS;
    return {
      pass: false,
      code: 'budget_exhausted',
      reason: 'widget_budget_exhausted',
      retryAfterSeconds: secondsToMidnightUtc(),
    };
  },
};
