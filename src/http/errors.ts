/**
 * The one error type of the service. `error` is the stable code (or, on the chat endpoint,
 * the exact German text of the specification); `message` is a human-readable sentence.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    statusCode: number,
    error: string,
    message?: string,
    extra: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message ?? error);
    this.statusCode = statusCode;
    this.error = error;
    this.details = extra.details;
    this.headers = extra.headers;
    this.hasMessage = message !== undefined;
  }

  readonly hasMessage: boolean;
}

/** The closed list of error codes used by non-chat endpoints. */
export const ErrorCode = {
  validation: 'validation_error',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  conflict: 'conflict',
  rateLimited: 'rate_limited',
  payloadTooLarge: 'payload_too_large',
  unprocessable: 'unprocessable',
  unavailable: 'service_unavailable',
  internal: 'internal_error',
} as const;

export const badRequest = (message: string, details?: unknown) =>
  new AppError(400, ErrorCode.validation, message, { details });
export const unauthorized = (message = 'Authentication required') =>
  new AppError(401, ErrorCode.unauthorized, message);
export const forbidden = (message = 'Permission denied') => new AppError(403, ErrorCode.forbidden, message);
export const notFound = (what: string) => new AppError(404, ErrorCode.notFound, `${what} not found`);
export const conflict = (message: string, details?: unknown) =>
  new AppError(409, ErrorCode.conflict, message, { details });

/** The chat endpoint's error texts, exactly as the specification names them. */
export const CHAT_TEXT = {
  messageRequired: 'Nachricht erforderlich',
  messageTooLong: 'Nachricht zu lang',
  invalidSenderId: 'Ungültige sender_id',
  keyRequired: 'API Key erforderlich',
  keyInvalid: 'Ungültiger API Key',
  keyExpired: 'API Key abgelaufen',
  botDisabled: 'Bot deaktiviert',
  botNotFound: 'Bot nicht gefunden',
  conversationNotFound: 'Conversation nicht gefunden',
  quotaExhausted: 'Nachrichtenlimit erreicht',
  rateLimited: 'Rate-Limit erreicht',
  internal: 'Interner Fehler',
} as const;
