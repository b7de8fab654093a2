/**
 * Every refusal's stable machine code, so that a client can word it in its user's language:
 * the error body's `code` (`error` keeps the coarse class: validation_error, conflict, …).
 * The OpenAPI document lists them all (ErrorBody.code); the dashboard holds a text for each.
 */
export const ERROR_CODES = [
  // Coarse classes, the code of a refusal that has no finer one.
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'payload_too_large',
  'unprocessable',
  'service_unavailable',
  'internal_error',
  // Schema validation of a request (details.field names the field).
  'field_required',
  'field_unknown',
  'field_type',
  'field_too_long',
  'field_too_short',
  'field_out_of_range',
  'field_format',
  'field_choice',
  'field_pattern',
  'field_items',
  'field_invalid',
  'field_blank',
  'field_nul',
  'body_unreadable',
  // Fields in relation to each other or to stored data.
  'date_range_order',
  'date_in_past',
  'month_format',
  'cursor_invalid',
  'plan_unknown',
  'reference_unknown',
  'list_incomplete',
  'duplicate_item',
  'either_field',
  'nothing_to_change',
  // URLs (knowledge import, webhook address): details.field, details.host.
  'url_too_long',
  'url_invalid',
  'url_scheme',
  'url_credentials',
  'url_no_host',
  'url_host_unresolvable',
  'url_host_internal',
  // Sign-in, sessions, keys and roles.
  'login_failed',
  'login_required',
  'session_expired',
  'login_throttled',
  'account_deactivated',
  'permission_missing',
  'csrf_header_missing',
  'api_key_missing',
  'api_key_invalid',
  'api_key_expired',
  'plan_without_api',
  'internal_key_invalid',
  'password_weak',
  'password_unchanged',
  'password_wrong',
  'password_attempts',
  // Team and invitations.
  'owner_grant_refused',
  'owner_change_refused',
  'manager_role_lost',
  'self_deactivation',
  'last_owner',
  'member_exists',
  'invitation_pending',
  'invitation_unknown',
  'invitation_expired',
  'address_taken',
  'invitation_mail_failed',
  // Knowledge, imports and uploads.
  'import_empty',
  'import_too_many',
  'file_empty',
  'file_too_large',
  'upload_too_large',
  'uploads_busy',
  'multipart_malformed',
  'query_blank',
  'raw_text_only',
  // Bots, prompt versions, flow.
  'bot_activation_blocked',
  'block_name_taken',
  'prompt_version_last',
  'prompt_version_current',
  'conversation_ended',
  // Events and bookings.
  'event_locked',
  'payment_terms_locked',
  'capacity_below_booked',
  'waitlist_below_queued',
  'time_order',
  'amount_negative',
  'amount_too_high',
  'amount_decimals',
  'amount_whole',
  'price_required',
  'deposit_required',
  'deposit_above_price',
  'payment_url_required',
  'event_deletion_refused',
  'status_transition',
  'booking_exists',
  'booking_refused',
  'edit_conflict',
  'payment_unavailable',
  // Contacts, webhooks.
  'sender_taken',
  'webhook_limit',
  'webhook_disabled',
  'webhook_auth_throttled',
  // Website widget.
  'widget_disabled',
  'origin_missing',
  'origin_not_allowed',
  'publishable_key_invalid',
  'visitor_token_invalid',
  'visitor_token_expired',
  'visitor_identity_rotated',
  'visitor_session_too_old',
  'identity_required',
  'identity_invalid',
  'widget_budget_exhausted',
  'secret_key_missing',
  // Inbox.
  'conversation_held',
  'conversation_with_bot',
  'conversation_closed',
  // Contacts as people.
  'email_taken',
  'phone_taken',
  'phone_invalid',
  'merge_same_contact',
  'merge_booking_conflict',
  // The second chance of a mail that was not answered.
  'mail_not_skipped',
  'mail_address_refused',
  'mail_empty',
  // The inbox's team: saved replies, the visitor's rating.
  'saved_reply_name_taken',
  'reply_email_off',
  'conversation_not_closed',
  // Messaging channels (WhatsApp, SMS).
  'window_closed',
  'opted_out',
  'connection_gone',
  'template_unknown',
  'template_parameters',
  'template_channel',
  'template_unsupported',
  'templates_unavailable',
] as const;
export type ErrorCodeName = (typeof ERROR_CODES)[number];

/** What a refusal names: which field, which resource, the figures of a limit. */
export interface ErrorDetails {
  /** The code of this refusal when finer than the class. */
  code?: ErrorCodeName;
  /** The request field refused (a top-level body or query field, e.g. `url`, `title`). */
  field?: string;
  [key: string]: unknown;
}

/** Resources a 404 names (details.resource). */
export const RESOURCES = {
  Bot: 'bot',
  Block: 'block',
  'Flow step': 'flow_step',
  Tenant: 'tenant',
  User: 'user',
  'API key': 'api_key',
  Invitation: 'invitation',
  Conversation: 'conversation',
  Message: 'message',
  'Prompt version': 'prompt_version',
  'Current prompt version': 'prompt_version',
  'Version to compare against': 'prompt_version',
  Notification: 'notification',
  Event: 'event',
  Booking: 'booking',
  Contact: 'contact',
  'Knowledge import': 'knowledge_import',
  'Knowledge entry': 'knowledge_entry',
  'Onboarding step': 'onboarding_step',
  'Webhook endpoint': 'webhook_endpoint',
  'Webhook delivery': 'webhook_delivery',
  'Outbox message': 'outbox_message',
  Mailbox: 'mailbox',
  Mail: 'mail',
  'Channel connection': 'channel_connection',
  Route: 'route',
  'Widget visitor': 'widget_visitor',
  'Saved reply': 'saved_reply',
} as const;
export type ResourceName = keyof typeof RESOURCES;

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * The one error type of the service. `error` is the coarse code (or, on the chat endpoint,
 * the exact German text of the specification); `code` the refusal's own code
 * (details.code when given); `message` a sentence in English for logs and integrators.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly code: ErrorCodeName;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    statusCode: number,
    error: string,
    message?: string,
    extra: { details?: ErrorDetails; headers?: Record<string, string> } = {},
  ) {
    super(message ?? error);
    this.statusCode = statusCode;
    this.error = error;
    const { code, ...details } = extra.details ?? {};
    this.code = code ?? (KNOWN_CODES.has(error) ? (error as ErrorCodeName) : classOf(statusCode));
    this.details = Object.keys(details).length > 0 ? details : undefined;
    this.headers = extra.headers;
    this.hasMessage = message !== undefined;
  }

  readonly hasMessage: boolean;
}

/** The closed list of error classes used by non-chat endpoints. */
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
} as const satisfies Record<string, ErrorCodeName>;

/** The class of an HTTP status, the code of a refusal without a finer one. */
export function classOf(status: number): ErrorCodeName {
  const classes: Record<number, ErrorCodeName> = {
    400: 'validation_error',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    410: 'not_found',
    413: 'payload_too_large',
    422: 'unprocessable',
    429: 'rate_limited',
    503: 'service_unavailable',
  };
  return classes[status] ?? (status < 500 ? 'validation_error' : 'internal_error');
}

export const badRequest = (message: string, details?: ErrorDetails) =>
  new AppError(400, ErrorCode.validation, message, { details });
export const unauthorized = (message = 'Authentication required', details?: ErrorDetails) =>
  new AppError(401, ErrorCode.unauthorized, message, { details });
export const forbidden = (message = 'Permission denied', details?: ErrorDetails) =>
  new AppError(403, ErrorCode.forbidden, message, { details });
export const notFound = (what: ResourceName) =>
  new AppError(404, ErrorCode.notFound, `${what} not found`, { details: { resource: RESOURCES[what] } });
export const conflict = (message: string, details?: ErrorDetails) =>
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
