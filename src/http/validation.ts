import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
    ...options,
  });
  addFormats.default(ajv);
  return ajv;
}

/**
 * A query string takes only the parameters its operation declares: an unknown one (a
 * misspelling, or `?offset=` on a list paged by cursor) is a 400, not silently ignored. A
 * schema that says otherwise keeps its own rule.
 */
function closedQuery(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' && !('additionalProperties' in schema)
    ? { ...schema, additionalProperties: false }
    : schema;
}

/**
 * JSON bodies are validated as sent (no type coercion, unknown fields are errors), while
 * query strings and path parameters, which arrive as text, are coerced to their types.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = makeAjv({ coerceTypes: false });
  const textAjv = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return bodyAjv.compile(schema as object);
    const text = schema as Record<string, unknown>;
    return textAjv.compile(httpPart === 'querystring' ? closedQuery(text) : text);
  };
}
