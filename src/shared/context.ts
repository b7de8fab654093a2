/**
 * The type of the application context. It lives in the shared base so that every module can
 * name it; src/context.ts builds it (the composition root) from the modules' services.
 */
import type { Config } from '../config.js';
import type { Coordination } from '../coordination/index.js';
import type { Database } from '../db/database.js';
import type { Health } from '../health.js';
import type { ApiKeyService } from '../modules/auth/api-keys.js';
import type { SessionService } from '../modules/auth/sessions.js';
import type { ChatExtension } from '../modules/chat/extensions.js';
import type { ChannelGuards } from '../modules/chat/pipeline/guards.js';
import type { ChannelDeliveries } from '../modules/chat/pipeline/types.js';
import type { EmbeddingsClient } from '../modules/knowledge/embeddings.js';
import type { ModelProvider } from '../modules/models/index.js';
import type { TracingHandle } from '../observability/tracing.js';

/**
 * Everything a module needs, built once per process and handed to every module plugin.
 * Tests build one per storage backend.
 */
export interface AppContext {
  config: Config;
  db: Database;
  coordination: Coordination;
  apiKeys: ApiKeyService;
  sessions: SessionService;
  /** The AI model (deployment provider with per-bot override); tests may replace it. */
  model: ModelProvider;
  /** The embeddings client, or null when EMBEDDINGS_BASE_URL is not set (search is then full-text and trigram only). */
  embeddings: EmbeddingsClient | null;
  /** Modules that add prompt sections or post-process chat replies (see chat/extensions.ts). */
  chatExtensions: ChatExtension[];
  /**
   * Per channel kind, the delivery a person's reply from the inbox leaves through: the port and
   * outbox kind the bot's replies on that channel use (composed in src/context.ts).
   */
  deliveries: ChannelDeliveries;
  /** The channel guards admission runs, by the name the registry's descriptors give them. */
  guards: ChannelGuards;
  /** Whether the database and Redis answer (for /ready, 503 answers and outage logs). */
  health: Health;
  /** OpenTelemetry tracing of the chat; null unless an OTLP endpoint is configured. */
  tracing: TracingHandle | null;
  /** Closes what the context opened, in reverse order. */
  close(): Promise<void>;
}
