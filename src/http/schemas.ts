import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, RESOURCES, type ErrorCodeName } from './errors.js';

/** The JSON error body of every endpoint except chat. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Stable error class, e.g. validation_error, not_found, conflict' }),
    code: Type.Unsafe<ErrorCodeName>({
      type: 'string',
      enum: [...ERROR_CODES],
      description:
        "Stable code of this refusal (finer than `error`), for a client's own wording; `details` holds what it names",
    }),
    message: Type.String({ description: 'Human-readable explanation (English)' }),
    details: Type.Optional(
      Type.Object(
        {
          field: Type.Optional(
            Type.String({ description: 'The refused request field (top-level name, e.g. url, title)' }),
          ),
          path: Type.Optional(
            Type.String({ description: 'Full path of a nested refused field, e.g. items.0.title' }),
          ),
          resource: Type.Optional(
            Type.Unsafe<string>({
              type: 'string',
              enum: [...new Set(Object.values(RESOURCES))],
              description: 'What was not found (code not_found)',
            }),
          ),
        },
        {
          additionalProperties: true,
          description: 'What the refusal names: field, resource, limits, states',
        },
      ),
    ),
    request_id: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

/** Standard error responses of a dashboard or /v1 route, merged into its response schema. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}

/** Names of the OpenAPI document's component schemas, by the title their schema carries. */
export const SCHEMA_NAMES = new Map<string, string>();

/**
 * Names schemas for the OpenAPI document: it shows them as `#/components/schemas/<name>` and
 * refers to them instead of repeating them. The name travels as the schema's title (an `$id`
 * does the same, but the response serializer refuses an `$id` that appears twice in one
 * response, e.g. a list and its current item).
 */
export function nameSchemas(schemas: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(schemas)) {
    schema.title = name;
    SCHEMA_NAMES.set(name, name);
  }
}

export const Uuid = Type.String({ format: 'uuid' });
export const IdParams = Type.Object({ id: Type.String({ description: 'Resource id (UUID)' }) });

type Security = Array<Record<string, string[]>>;
/** OpenAPI security requirements of the three kinds of caller. */
export const SESSION_SECURITY: Security = [{ session: [] }, { sessionBearer: [] }];
export const API_KEY_SECURITY: Security = [{ apiKey: [] }, { apiKeyHeader: [] }];
export const BEARER_KEY_SECURITY: Security = [{ apiKey: [] }];
export const INTERNAL_SECURITY: Security = [{ internalKey: [] }];

/**
 * The 200 response of a route that answers with server-sent events only: the OpenAPI document
 * names `text/event-stream` as its content type.
 */
export function eventStreamResponse(description: string) {
  return {
    description: 'Server-sent events',
    content: { 'text/event-stream': { schema: { type: 'string' as const, description } } },
  };
}
