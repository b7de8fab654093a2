/**
 * Configuration: every environment variable the service reads, validated once at start.
 * Each variable is listed in the README's configuration table.
 */
import { fileURLToPath } from 'node:url';
import { parseSecretKeys, SecretKeyError } from './shared/secrets.js';

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}`);
  }
  return raw;
}

export const MODEL_PROVIDERS = ['offline', 'openai', 'anthropic'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export function loadConfig(env: Env = process.env) {
  const nodeEnv = oneOf(env, 'NODE_ENV', 'development', ['development', 'production', 'test']);
  return {
    nodeEnv,
    host: str(env, 'HOST', '0.0.0.0'),
    port: int(env, 'PORT', 3000, 0, 65535),
    logLevel: oneOf(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ]),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 2 * 1024 * 1024, 16 * 1024, 64 * 1024 * 1024),
    publicBaseUrl: str(env, 'PUBLIC_BASE_URL', `http://localhost:${int(env, 'PORT', 3000, 0, 65535)}`),
    /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
    metricsToken: optional(env, 'METRICS_TOKEN'),

    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    databaseQueueLimit: int(env, 'DATABASE_QUEUE_LIMIT', 100, 1, 100_000),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 600000),
    databaseStatementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15000, 100, 3600000),
    dataDir: str(env, 'PARLEY_DATA_DIR', './data'),
    pgliteSharedBuffersMb: int(env, 'PGLITE_SHARED_BUFFERS_MB', 16, 1, 4096),
    seedDemo: bool(env, 'PARLEY_SEED_DEMO', true),
    webDir: optional(env, 'PARLEY_WEB_DIR'),
    widgetDir: optional(env, 'PARLEY_WIDGET_DIR'),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10000, 0, 600000),
    /** Keys that encrypt tenant secrets (`secrets.ts`); unset on PGlite: a key file in the data directory. */
    secretKey: secretKeys(env),

    auth: {
      bcryptCost: int(env, 'BCRYPT_COST', 10, 4, 15),
      apiKeyCacheTtlSeconds: int(env, 'API_KEY_CACHE_TTL_SECONDS', 300, 0, 86400),
      apiKeyCacheMax: int(env, 'API_KEY_CACHE_MAX', 10000, 1, 10_000_000),
      sessionTtlHours: int(env, 'SESSION_TTL_HOURS', 12, 1, 24 * 90),
      loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
      loginFailureWindowSeconds: int(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 86400),
      loginMaxDelayMs: int(env, 'LOGIN_MAX_DELAY_MS', 5000, 0, 60000),
      internalApiKey: optional(env, 'INTERNAL_API_KEY'),
    },

    mail: {
      /** SMTP server for team invitations (smtp:// or smtps://, credentials in the URL); unset: the inviter passes the link on. */
      smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
      from: str(env, 'MAIL_FROM', 'Parley <no-reply@localhost>'),
    },

    model: {
      provider: oneOf<ModelProviderName>(env, 'MODEL_PROVIDER', 'offline', MODEL_PROVIDERS),
      name: optional(env, 'MODEL_NAME'),
      openaiBaseUrl: url(env, 'OPENAI_BASE_URL', ['http:', 'https:']),
      openaiApiKey: optional(env, 'OPENAI_API_KEY'),
      anthropicBaseUrl: url(env, 'ANTHROPIC_BASE_URL', ['http:', 'https:']),
      anthropicApiKey: optional(env, 'ANTHROPIC_API_KEY'),
      timeoutMs: int(env, 'MODEL_TIMEOUT_MS', 30000, 100, 600000),
      maxTokens: int(env, 'MODEL_MAX_TOKENS', 1024, 16, 100000),
    },

    knowledge: {
      minScore: num(env, 'KNOWLEDGE_MIN_SCORE', 0.4, 0, 1),
      maxEntryBytes: int(env, 'KNOWLEDGE_MAX_ENTRY_BYTES', 1024 * 1024, 1024, 16 * 1024 * 1024),
      embeddingsBaseUrl: url(env, 'EMBEDDINGS_BASE_URL', ['http:', 'https:']),
      embeddingsApiKey: optional(env, 'EMBEDDINGS_API_KEY'),
      embeddingsModel: str(env, 'EMBEDDINGS_MODEL', 'text-embedding-3-small'),
      embeddingsTimeoutMs: int(env, 'EMBEDDINGS_TIMEOUT_MS', 5000, 100, 120000),
      embeddingsBreakerMs: int(env, 'EMBEDDINGS_BREAKER_MS', 30000, 0, 3600000),
    },

    knowledgeImport: {
      /** Largest document: an uploaded file or a fetched web page or sitemap. */
      maxBytes: int(env, 'KNOWLEDGE_IMPORT_MAX_BYTES', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
      /** Pages taken from one sitemap. */
      maxPages: int(env, 'KNOWLEDGE_IMPORT_MAX_PAGES', 200, 1, 10_000),
      /** One fetch of a web page, robots.txt or sitemap, redirects included. */
      timeoutMs: int(env, 'KNOWLEDGE_IMPORT_TIMEOUT_MS', 15000, 100, 120000),
      allowPrivateTargets: bool(env, 'KNOWLEDGE_IMPORT_ALLOW_PRIVATE_TARGETS', false),
      /** All files of one upload request together. */
      maxRequestBytes: int(
        env,
        'KNOWLEDGE_IMPORT_MAX_REQUEST_BYTES',
        50 * 1024 * 1024,
        1024,
        1024 * 1024 * 1024,
      ),
      /** Upload bytes one tenant may have in flight (received, not yet stored) on an instance. */
      maxTenantUploadBytes: int(
        env,
        'KNOWLEDGE_IMPORT_MAX_TENANT_UPLOAD_BYTES',
        100 * 1024 * 1024,
        1024,
        4 * 1024 * 1024 * 1024,
      ),
      /** Parser processes per instance: documents parsed at the same time. */
      parsers: int(env, 'KNOWLEDGE_IMPORT_PARSERS', 1, 1, 16),
      /** Heap of one parser process; a document that needs more fails with parser_memory. */
      parserMemoryMb: int(env, 'KNOWLEDGE_IMPORT_PARSER_MEMORY_MB', 512, 64, 16384),
      /** Wall-clock time to extract one document's text; past it: parser_timeout. */
      parserTimeoutMs: int(env, 'KNOWLEDGE_IMPORT_PARSER_TIMEOUT_MS', 60_000, 100, 3_600_000),
      /** Characters of text one document may yield (500 entries of 4,000 characters). */
      maxChars: int(env, 'KNOWLEDGE_IMPORT_MAX_CHARS', 2_000_000, 1000, 100_000_000),
      /** Pages of one PDF, checked before its pages are read. */
      maxPdfPages: int(env, 'KNOWLEDGE_IMPORT_MAX_PDF_PAGES', 1000, 1, 100_000),
      /** Bytes the parts of one DOCX may unpack to. */
      maxUnpackedBytes: int(
        env,
        'KNOWLEDGE_IMPORT_MAX_UNPACKED_BYTES',
        20 * 1024 * 1024,
        1024,
        1024 * 1024 * 1024,
      ),
      /** Unpacked ÷ packed size of one DOCX part (parts from 1 MB unpacked on). */
      maxCompressionRatio: int(env, 'KNOWLEDGE_IMPORT_MAX_COMPRESSION_RATIO', 100, 2, 100_000),
      /** Entries one document may create. */
      maxEntries: int(env, 'KNOWLEDGE_IMPORT_MAX_ENTRIES', 500, 1, 100_000),
    },

    prompt: {
      securityLayer: bool(env, 'PROMPT_SECURITY_LAYER', true),
    },

    payments: {
      stripeSecretKey: optional(env, 'STRIPE_SECRET_KEY'),
      stripeWebhookSecret: optional(env, 'STRIPE_WEBHOOK_SECRET'),
      stripeApiHost: optional(env, 'STRIPE_API_HOST'),
      stripeApiPort: int(env, 'STRIPE_API_PORT', 443, 1, 65535),
      stripeApiProtocol: oneOf(env, 'STRIPE_API_PROTOCOL', 'https', ['http', 'https']),
    },

    webhooks: {
      allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
      maxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10000, 100, 120000),
      pollIntervalMs: int(env, 'WEBHOOK_POLL_INTERVAL_MS', 1000, 10, 600000),
      workerEnabled: bool(env, 'WEBHOOK_WORKER', true),
      /**
       * The former key of endpoint signing secrets: only read by the start-up re-seal, which
       * moves them onto PARLEY_SECRET_KEY; can be removed after one start.
       */
      secretsKey: optional(env, 'WEBHOOK_SECRETS_KEY'),
    },

    outbound: {
      /**
       * Hosts a tenant names (mailbox IMAP/SMTP hosts, messaging and voice connections) may be
       * loopback or private addresses: tests and closed networks only.
       */
      allowPrivateTargets: bool(env, 'OUTBOUND_ALLOW_PRIVATE_TARGETS', false),
    },

    email: {
      /** Key for tenant secrets at rest (mailbox passwords, client secrets); a key file in the data directory when unset. */
      /** Microsoft identity platform and Graph base URLs (tests point them at local servers). */
      graphLoginUrl: str(env, 'EMAIL_GRAPH_LOGIN_URL', 'https://login.microsoftonline.com'),
      graphApiUrl: str(env, 'EMAIL_GRAPH_API_URL', 'https://graph.microsoft.com/v1.0'),
      /** Longest pause between two checks of a mailbox when IDLE (or Graph) reports nothing. */
      pollIntervalMs: int(env, 'EMAIL_POLL_INTERVAL_MS', 60_000, 100, 60_000),
      /** How long an instance holds a mailbox's connection without renewing its lease. */
      leaseSeconds: int(env, 'EMAIL_LEASE_SECONDS', 90, 5, 3600),
      /** Minutes without a successful sync after which a mailbox counts as stale. */
      staleMinutes: int(env, 'EMAIL_STALE_MINUTES', 30, 1, 10_080),
      /** Mailbox connections run on this instance (off in tests unless asked). */
      syncEnabled: bool(env, 'EMAIL_SYNC', true),
      /** Loop guard: bot replies to one sender of a mailbox per rolling hour and per rolling day. */
      replyCapHour: int(env, 'EMAIL_REPLY_CAP_HOUR', 5, 1, 1000),
      replyCapDay: int(env, 'EMAIL_REPLY_CAP_DAY', 20, 1, 10_000),
      /** Attachments: the largest one read, all of a mail together, and the media types read at all. */
      attachmentMaxBytes: int(env, 'EMAIL_ATTACHMENT_MAX_BYTES', 5 * 1024 * 1024, 1024, 50 * 1024 * 1024),
      attachmentsMaxTotalBytes: int(
        env,
        'EMAIL_ATTACHMENTS_MAX_TOTAL_BYTES',
        10 * 1024 * 1024,
        1024,
        100 * 1024 * 1024,
      ),
      attachmentTypes: str(
        env,
        'EMAIL_ATTACHMENT_TYPES',
        'application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      )
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
      /** Characters of attachment text the bot reads per mail. */
      attachmentTextMaxChars: int(env, 'EMAIL_ATTACHMENT_TEXT_MAX_CHARS', 20_000, 100, 200_000),
    },

    chat: {
      rateLimitMax: int(env, 'CHAT_RATE_LIMIT_MAX', 60, 1, 10_000_000),
    },

    messaging: {
      /** Meta's Graph API with its pinned version; Parley sends to {base}/{phone_number_id}/messages. */
      graphBaseUrl: str(env, 'WHATSAPP_GRAPH_BASE_URL', 'https://graph.facebook.com/v23.0'),
      /** The `twilio` library's api.baseUrl; Parley sends to {base}/2010-04-01/Accounts/{sid}/Messages.json. */
      twilioApiBaseUrl: str(env, 'TWILIO_API_BASE_URL', 'https://api.twilio.com'),
      /** The `twilio` library's content.baseUrl: WhatsApp templates, buttons and lists ({base}/v1/Content). */
      twilioContentBaseUrl: str(env, 'TWILIO_CONTENT_BASE_URL', 'https://content.twilio.com'),
      /** Longest wait for a provider's answer to one send; after it the send counts as ambiguous. */
      sendTimeoutMs: int(env, 'MESSAGING_SEND_TIMEOUT_MS', 15_000, 100, 120_000),
      /**
       * Customers' turns one instance runs at the same time; the others wait in order. Keeps
       * database connections free for webhooks, which are acknowledged at once however many
       * turns wait.
       */
      turnConcurrency: int(env, 'MESSAGING_TURN_CONCURRENCY', 4, 1, 256),
      /**
       * Voice notes are transcribed by an OpenAI-compatible `POST {base}/audio/transcriptions`
       * when TRANSCRIPTION_BASE_URL is set; without it the customer is told that only text is read.
       */
      transcription: {
        baseUrl: url(env, 'TRANSCRIPTION_BASE_URL', ['http:', 'https:']),
        apiKey: optional(env, 'TRANSCRIPTION_API_KEY'),
        model: str(env, 'TRANSCRIPTION_MODEL', 'whisper-1'),
        /** Longest voice note read, in bytes (WhatsApp's own limit for audio is 16 MB). */
        maxBytes: int(env, 'TRANSCRIPTION_MAX_BYTES', 16 * 1024 * 1024, 1024, 100 * 1024 * 1024),
        timeoutMs: int(env, 'TRANSCRIPTION_TIMEOUT_MS', 30_000, 100, 300_000),
      },
    },

    widget: {
      /** Lifetime of a visitor token. */
      tokenTtlMinutes: int(env, 'WIDGET_TOKEN_TTL_MINUTES', 30, 15, 60),
      /** How long after its expiry a visitor token can still be refreshed (the widget resumes). */
      refreshWindowHours: int(env, 'WIDGET_REFRESH_WINDOW_HOURS', 168, 1, 24 * 90),
      /** Requests per minute: per visitor (messages), per client address, per publishable key. */
      rateLimitVisitor: int(env, 'WIDGET_RATE_LIMIT_VISITOR', 20, 1, 10_000_000),
      rateLimitIp: int(env, 'WIDGET_RATE_LIMIT_IP', 60, 1, 10_000_000),
      rateLimitKey: int(env, 'WIDGET_RATE_LIMIT_KEY', 600, 1, 10_000_000),
      /** Comment lines that keep an idle event stream open through proxies. */
      heartbeatSeconds: int(env, 'WIDGET_HEARTBEAT_SECONDS', 25, 1, 3600),
    },

    conversations: {
      inactivityMinutes: int(env, 'CONVERSATION_INACTIVITY_MINUTES', 1440, 1, 525600),
      /** Whether the bot's "no answer" (the offline model's hand-over reply) hands the conversation to the inbox. */
      handoverOnNoAnswer: bool(env, 'HANDOVER_ON_NO_ANSWER', true),
    },

    reminders: {
      timeZone: str(env, 'REMINDER_TIME_ZONE', 'Europe/Berlin'),
    },

    tracing: tracingConfig(env),
  };
}

/**
 * OpenTelemetry tracing of the chat, off unless an OTLP endpoint is set (the standard
 * variables). The signal-specific endpoint is used as given; the general one gets `/v1/traces`.
 * Headers, timeout, compression and certificates of the exporter and the sampler are read by
 * the OpenTelemetry SDK itself from their standard variables.
 */
function tracingConfig(env: Env): { endpoint: string | undefined; serviceName: string } {
  const serviceName = str(env, 'OTEL_SERVICE_NAME', 'parley');
  const traces = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const base = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const endpoint = traces ?? (base && `${base.replace(/\/+$/, '')}/v1/traces`);
  if (!endpoint || bool(env, 'OTEL_SDK_DISABLED', false)) return { endpoint: undefined, serviceName };
  const protocol = str(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
  if (protocol !== 'http/json') {
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (traces are sent as OTLP/HTTP JSON), got "${protocol}"`,
    );
  }
  return { endpoint, serviceName };
}

function secretKeys(env: Env): string | undefined {
  const raw = optional(env, 'PARLEY_SECRET_KEY');
  if (raw === undefined) return undefined;
  try {
    parseSecretKeys(raw);
  } catch (error) {
    if (error instanceof SecretKeyError) throw new ConfigError(error.message);
    throw error;
  }
  return raw;
}

export type Config = ReturnType<typeof loadConfig>;

const NO_WEB_BUILD_DIR = fileURLToPath(new URL('../test/fixtures/no-web-build', import.meta.url));

/** Configuration for tests: quiet, fast hashing, no background workers unless asked. */
export function testConfig(overrides: Env = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    BCRYPT_COST: '4',
    PARLEY_SEED_DEMO: 'false',
    WEBHOOK_WORKER: 'false',
    // A fixed key: tests never write a key file into ./data.
    PARLEY_SECRET_KEY: 'test:' + Buffer.alloc(32, 7).toString('base64'),
    // Most tests continue conversations after an unanswered question; the inbox's tests turn it on.
    HANDOVER_ON_NO_ANSWER: 'false',
    EMAIL_SYNC: 'false',
    // Mailbox tests talk to Dovecot and smtp-server on 127.0.0.1; the guard's own tests turn it off.
    OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
    // Tests never see a dashboard build that `npm start` may have left in web/dist; a test of
    // the serving sets its own directory.
    PARLEY_WEB_DIR: NO_WEB_BUILD_DIR,
    PARLEY_WIDGET_DIR: NO_WEB_BUILD_DIR,
    ...overrides,
  });
}
