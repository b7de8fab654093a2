import { Type, type TSchema } from '@sinclair/typebox';

/** The JSON error body of every endpoint except chat. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Stable error code, e.g. validation_error, not_found' }),
    message: Type.String({ description: 'Human-readable explanation' }),
    details: Type.Optional(Type.Unknown()),
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
