/**
 * The one place that tells a database that cannot be reached (down, restarting, frozen,
 * refusing connections) from a query that is wrong. The first is answered 503 with
 * Retry-After and logged once per outage; the second stays an error of the request.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * SQLSTATEs of an unreachable or overloaded server: class 08 (connection exception),
 * 53300 too many connections, 57014 statement timeout, 57P01–57P03 shutdown / crash /
 * not yet accepting connections.
 */
const SQLSTATE = /^(08...|53300|57014|57P0[1-3])$/;

/** node-postgres' own words for a lost, refused or timed-out connection. */
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Query read timeout/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Connection ended unexpectedly/i,
];

/** Thrown where the service itself decides the database cannot take the request now. */
export class DatabaseUnavailableError extends Error {
  constructor(message = 'database unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  if (error instanceof DatabaseUnavailableError) return true;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Connecting to "localhost" tries ::1 and 127.0.0.1 and fails with both in an AggregateError.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
