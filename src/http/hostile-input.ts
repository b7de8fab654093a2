import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest } from './errors.js';

/**
 * The NUL character (U+0000) is refused in every text value a request carries: path
 * parameters, query strings, header values and the body at any depth (object keys included).
 * PostgreSQL cannot store it in text or jsonb, and no field of the service has a use for it.
 * The check runs once for every route, after authentication and before validation, so a
 * refused request does no work at all (no model call, no write).
 *
 * Routes with their own error texts (the chat endpoint) name them in `config.invalidText`:
 * the text for a field when the field has one, else the fallback.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    invalidText?: { fields: Record<string, string>; fallback: string };
  }
}

const NUL = '\u0000';

/** The parts of a request that carry text, in the order they are checked. */
type Part = 'params' | 'query' | 'headers' | 'body';

/** A position in the value: its key and the position of its parent (built only when needed). */
interface Position {
  key: string;
  parent: Position | undefined;
}

function pathOf(position: Position | undefined): string[] {
  const path: string[] = [];
  for (let p = position; p; p = p.parent) path.push(p.key);
  return path.reverse();
}

/**
 * The path of the first text value (or object key) holding a NUL, or undefined. Iterative, so
 * a deeply nested body cannot exhaust the stack. `first` names top-level fields to look at
 * before the others (the order in which a route checks its fields).
 */
export function findNul(value: unknown, first: readonly string[] = []): string[] | undefined {
  const stack: { value: unknown; at: Position | undefined }[] = [{ value, at: undefined }];
  while (stack.length > 0) {
    const { value: node, at } = stack.pop()!;
    if (typeof node === 'string') {
      if (node.includes(NUL)) return pathOf(at);
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i -= 1) {
        stack.push({ value: node[i], at: { key: String(i), parent: at } });
      }
    } else if (typeof node === 'object' && node !== null && !ArrayBuffer.isView(node)) {
      const keys = Object.keys(node);
      if (at === undefined && first.length > 0) keys.sort((a, b) => rank(a, first) - rank(b, first));
      for (const key of keys) if (key.includes(NUL)) return pathOf({ key, parent: at });
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i]!;
        stack.push({ value: (node as Record<string, unknown>)[key], at: { key, parent: at } });
      }
    }
  }
  return undefined;
}

function rank(key: string, first: readonly string[]): number {
  const index = first.indexOf(key);
  return index === -1 ? first.length : index;
}

/** A field path as the error message shows it; a NUL inside a key is written as \0. */
function fieldName(part: Part, path: string[]): string {
  return [part, ...path].join('.').replaceAll(NUL, '\\0').slice(0, 200);
}

function refusal(request: FastifyRequest, part: Part, path: string[]): AppError {
  const field = fieldName(part, path);
  const message = `Field '${field}' must not contain the NUL character (U+0000)`;
  const texts = request.routeOptions.config?.invalidText;
  if (!texts) return badRequest(message, { code: 'field_nul', field: path[0] ?? part, path: field });
  const top = part === 'body' ? path[0] : undefined;
  const text = (top !== undefined ? texts.fields[top] : undefined) ?? texts.fallback;
  return new AppError(400, text, message);
}

export function registerHostileInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const first = Object.keys(request.routeOptions.config?.invalidText?.fields ?? {});
    const parts: [Part, unknown][] = [
      ['params', request.params],
      ['query', request.query],
      ['headers', request.headers],
      ['body', request.body],
    ];
    for (const [part, value] of parts) {
      const path = findNul(value, part === 'body' ? first : []);
      if (path) throw refusal(request, part, path);
    }
  });
}
