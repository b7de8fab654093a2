import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.js';
import { EngineRefusal } from '../shared/refusal.js';
import { noteChatRefusal } from '../observability/metrics.js';
import { asChatError } from './chat-refusal.js';
import { AppError, CHAT_TEXT, ErrorCode, type ErrorCodeName } from './errors.js';
import { serviceUnavailable } from './unavailable.js';

/**
 * Routes whose errors use the chat endpoint's body shape (`{"error": "<German text>"}`)
 * set `config: { errorStyle: 'chat' }`.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: 'chat';
  }
}

interface AjvLikeError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A readable sentence for a schema validation failure, naming the field. */
export function describeValidation(error: FastifyError): string {
  const first = (error.validation as AjvLikeError[] | undefined)?.[0];
  if (!first) return error.message;
  const context = error.validationContext ?? 'body';
  const path = (first.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const field = path ? `${context}.${path}` : context;
  if (first.keyword === 'additionalProperties') {
    return `Unknown field '${String(first.params?.additionalProperty)}' in ${field}`;
  }
  if (first.keyword === 'required') {
    const missing = String(first.params?.missingProperty);
    return `Field '${path ? `${path}.` : ''}${missing}' is required in ${context}`;
  }
  return `Field '${field}' ${first.message ?? 'is invalid'}`;
}

function chatBodyFor(error: FastifyError | AppError): { status: number; body: Record<string, string> } {
  if (error instanceof AppError) {
    const body: Record<string, string> = { error: error.error };
    if (error.hasMessage) body.message = error.message;
    return { status: error.statusCode, body };
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 400, body: { error: CHAT_TEXT.messageTooLong } };
  }
  if (error.validation || (error.statusCode !== undefined && error.statusCode < 500)) {
    // Unreadable body (not JSON, wrong content type): the message cannot be read.
    return { status: 400, body: { error: CHAT_TEXT.messageRequired } };
  }
  return { status: 500, body: { error: CHAT_TEXT.internal } };
}

/** The code of a schema keyword's refusal. */
const KEYWORD_CODES: Record<string, ErrorCodeName> = {
  required: 'field_required',
  additionalProperties: 'field_unknown',
  type: 'field_type',
  maxLength: 'field_too_long',
  minLength: 'field_too_short',
  maximum: 'field_out_of_range',
  minimum: 'field_out_of_range',
  exclusiveMaximum: 'field_out_of_range',
  exclusiveMinimum: 'field_out_of_range',
  format: 'field_format',
  enum: 'field_choice',
  const: 'field_choice',
  anyOf: 'field_choice',
  oneOf: 'field_choice',
  pattern: 'field_pattern',
  maxItems: 'field_items',
  minItems: 'field_items',
  uniqueItems: 'field_items',
};

/** The limit a keyword names (maxLength 200 → 200), for the client's sentence. */
const LIMIT_PARAMS = ['limit', 'allowedValues', 'format'];

/**
 * The code and details of a schema validation failure: the refused top-level field (`field`),
 * its full path when nested (`path`, e.g. items.0.title), where it was (`in`: body, querystring,
 * params) and the keyword's limit.
 */
export function validationDetails(error: FastifyError): {
  code: ErrorCodeName;
  details: Record<string, unknown>;
} {
  const first = (error.validation as AjvLikeError[] | undefined)?.[0];
  const where = error.validationContext ?? 'body';
  if (!first) return { code: 'field_invalid', details: { in: where } };
  const segments = (first.instancePath ?? '').split('/').filter(Boolean);
  if (first.keyword === 'required') segments.push(String(first.params?.missingProperty));
  if (first.keyword === 'additionalProperties') segments.push(String(first.params?.additionalProperty));
  const details: Record<string, unknown> = { in: where };
  if (segments.length > 0) details.field = segments[0];
  if (segments.length > 1) details.path = segments.join('.');
  for (const param of LIMIT_PARAMS) {
    if (first.params?.[param] !== undefined)
      details[param === 'allowedValues' ? 'allowed' : param] = first.params[param];
  }
  return { code: KEYWORD_CODES[first.keyword ?? ''] ?? 'field_invalid', details };
}

function apiBodyFor(error: FastifyError | AppError): { status: number; body: Record<string, unknown> } {
  if (error instanceof AppError) {
    const body: Record<string, unknown> = { error: error.error, code: error.code, message: error.message };
    if (error.details !== undefined) body.details = error.details;
    return { status: error.statusCode, body };
  }
  if (error.validation) {
    const { code, details } = validationDetails(error);
    return {
      status: 400,
      body: { error: ErrorCode.validation, code, message: describeValidation(error), details },
    };
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      status: 413,
      body: {
        error: ErrorCode.payloadTooLarge,
        code: ErrorCode.payloadTooLarge,
        message: 'Request body is too large',
      },
    };
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // Not JSON, a media type the route does not read, …: the body cannot be read.
    const status = error.statusCode === 415 ? 415 : 400;
    return { status, body: { error: ErrorCode.validation, code: 'body_unreadable', message: error.message } };
  }
  return {
    status: 500,
    body: { error: ErrorCode.internal, code: ErrorCode.internal, message: 'Internal server error' },
  };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((caught: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    // A database that cannot be reached is a 503 with Retry-After, logged once per outage
    // (src/health.ts), not a stack trace per request.
    if (caught instanceof EngineRefusal) noteChatRefusal(request, caught.reason);
    // The conversation engine's refusals become the chat's status and German text here, and only here.
    const error = (isDatabaseUnavailable(caught) ? serviceUnavailable(request) : asChatError(caught)) as
      FastifyError | AppError;
    const chat = request.routeOptions.config?.errorStyle === 'chat';
    const { status, body } = chat ? chatBodyFor(error) : apiBodyFor(error);
    // 503s are logged where they arise; a client that went away is not an error of the service.
    if (status >= 500 && status !== 503 && !request.raw.destroyed) {
      request.log.error({ err: error }, 'request failed');
    }
    if (error instanceof AppError && error.headers) reply.headers(error.headers);
    if (!chat && status >= 500) body.request_id = request.id;
    return reply.status(status).send(body);
  });
  // Unknown routes: see web-app.ts (JSON 404 for API paths, the dashboard page for the rest).
}
