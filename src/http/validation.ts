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
 * JSON bodies are validated as sent (no type coercion, unknown fields are errors), while
 * query strings and path parameters, which arrive as text, are coerced to their types.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = makeAjv({ coerceTypes: false });
  const textAjv = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
}
