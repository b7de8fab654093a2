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

/*
 * Every error text of the chat (`POST /api/bot-chat/:botId/chat` and the dashboard's test chat)
 * lives here: the specification's table, the texts the service adds beyond it (documented in
 * docs/chat.md), and the sentences that explain them in `message`.
 */

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

/** The chat's error texts beyond the specification's table (documented in docs/chat.md). */
export const CHAT_EXTRA_TEXT = {
  invalidMetadata: 'Ungültige metadata',
  unknownField: 'Unbekanntes Feld',
  invalidIdempotencyKey: 'Ungültiger Idempotency-Key',
  idempotencyMismatch: 'Idempotency-Key bereits für eine andere Anfrage verwendet',
  idempotencyInFlight: 'Anfrage mit diesem Idempotency-Key wird noch verarbeitet',
  handedOver: 'Conversation an Mitarbeiter übergeben',
  modelUnavailable: 'KI-Modell nicht verfügbar',
  invalidCharacter: 'Ungültiges Zeichen',
  serviceUnavailable: 'Dienst vorübergehend nicht verfügbar',
  invalidChoice: 'Ungültige Auswahl',
} as const;

/** The sentences in `message` that explain a chat error to the caller. */
export const CHAT_MESSAGE = {
  metadataNotObject: 'metadata muss ein JSON-Objekt sein.',
  metadataTooLarge: (bytes: number) => `metadata darf höchstens ${bytes} Bytes umfassen.`,
  unknownField: (field: string) => `Das Feld '${field}' ist nicht erlaubt.`,
  invalidIdempotencyKey: 'Idempotency-Key muss aus 1 bis 255 sichtbaren ASCII-Zeichen bestehen.',
  idempotencyMismatch:
    'Dieser Idempotency-Key wurde in den letzten 24 Stunden für eine Anfrage mit anderem Inhalt verwendet.',
  idempotencyInFlight:
    'Die erste Anfrage mit diesem Idempotency-Key ist noch nicht abgeschlossen. Bitte später erneut senden.',
  handedOver: 'Ein Mitarbeiter hat diese Conversation übernommen; der Bot antwortet darin nicht mehr.',
  modelUnavailable: (seconds: number) =>
    `Das KI-Modell ist vorübergehend nicht erreichbar. Bitte in ${seconds} Sekunden erneut versuchen.`,
  invalidChoice:
    'choice muss ein Objekt {block_id, item_id} mit der UUID eines Blocks und der id einer Option sein.',
} as const;

/** The answer to a NUL character in a chat request (http/hostile-input.ts): the field's own text. */
export const CHAT_INVALID_TEXT = {
  fields: {
    message: CHAT_TEXT.messageRequired,
    sender_id: CHAT_TEXT.invalidSenderId,
    metadata: CHAT_EXTRA_TEXT.invalidMetadata,
  },
  fallback: CHAT_EXTRA_TEXT.invalidCharacter,
};
