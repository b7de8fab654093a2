/**
 * The voice channel's view of a `twilio_voice` connection (the channel connections own the
 * stored record, its encrypted secrets and its dashboard), and the public URLs Twilio calls.
 * `loadVoiceConnection` is the one seam to the connections: a context answers from the channel
 * connections (`messaging/service.ts`), or from a source registered for it (tests, benchmarks).
 */
import type { AppContext } from '../../shared/context.js';
import { activeVoiceConnection, VOICE_SETTING_DEFAULTS, channelSecretsFor } from '../messaging/index.js';
import type { OpeningHours } from './hours.js';
import type { VoiceLanguage } from './speech/numbers.js';

export type VoiceMode = 'relay' | 'gather';

export interface VoiceConnection {
  id: string;
  tenantId: string;
  botId: string;
  /** Twilio account SID and auth token (the token signs every request Twilio sends). */
  accountSid: string;
  authToken: string;
  /** The Twilio number callers dial (E.164). */
  phoneNumber: string;
  /** Where a hand-over is dialled (E.164); none: the caller is told someone will call back. */
  handoffNumber: string | null;
  mode: VoiceMode;
  /** The connection's own public base URL, else the deployment's PUBLIC_BASE_URL. */
  publicBaseUrl: string | null;
  /** The language the call starts in; the caller may switch between the four. */
  language: VoiceLanguage;
  /** Said when the call is answered; a short default in the language otherwise. */
  greeting: string | null;
  /** When a person can take a hand-over; null: always. */
  openingHours: OpeningHours | null;
  maxCallSeconds: number;
  callsPerCallerPerHour: number;
}

/** The defaults live with the connections' rules, where the API shows them. */
export const VOICE_DEFAULTS: {
  language: VoiceLanguage;
  maxCallSeconds: number;
  callsPerCallerPerHour: number;
} = VOICE_SETTING_DEFAULTS;

/** Finds a connection by its id (any tenant: the id is in the URL Twilio calls). */
export type VoiceConnectionSource = (connectionId: string) => Promise<VoiceConnection | null>;

const sources = new WeakMap<AppContext, VoiceConnectionSource>();

/** Registers where a context finds its voice connections (the connections module, or a test's table). */
export function registerVoiceConnections(ctx: AppContext, source: VoiceConnectionSource): void {
  sources.set(ctx, source);
}

/** The `twilio_voice` connection with this id, or null (unknown id, other kind, or none wired). */
export async function loadVoiceConnection(
  ctx: AppContext,
  connectionId: string,
): Promise<VoiceConnection | null> {
  const source = sources.get(ctx);
  if (source) return source(connectionId);
  const found = await activeVoiceConnection(ctx.db, channelSecretsFor(ctx.config), connectionId);
  if (!found) return null;
  const { row, authToken } = found;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    botId: row.bot_id,
    accountSid: row.settings.account_sid ?? '',
    authToken,
    phoneNumber: row.settings.phone_number ?? '',
    handoffNumber: row.settings.handoff_number ?? null,
    mode: row.settings.mode ?? 'relay',
    publicBaseUrl: row.settings.public_base_url ?? null,
    language: row.settings.language ?? VOICE_DEFAULTS.language,
    greeting: row.settings.greeting ?? null,
    openingHours: row.settings.opening_hours
      ? { timeZone: row.settings.opening_hours.time_zone, days: row.settings.opening_hours.days }
      : null,
    maxCallSeconds: row.settings.max_call_seconds ?? VOICE_DEFAULTS.maxCallSeconds,
    callsPerCallerPerHour: row.settings.calls_per_caller_per_hour ?? VOICE_DEFAULTS.callsPerCallerPerHour,
  };
}

/** The public URLs of a connection: what Twilio is told and what signatures are checked against. */
export interface VoiceUrls {
  incoming: string;
  status: string;
  relay: string;
  handoff: string;
  turn(n: number): string;
  silence(n: number): string;
  poll(n: number, attempt: number): string;
}

export function voiceUrls(connection: VoiceConnection, deploymentBaseUrl: string): VoiceUrls {
  const base = (connection.publicBaseUrl ?? deploymentBaseUrl).replace(/\/+$/, '');
  const root = `${base}/v1/channels/${encodeURIComponent(connection.id)}/voice`;
  return {
    incoming: `${root}/incoming`,
    status: `${root}/status`,
    relay: `${root.replace(/^http/, 'ws')}/relay`,
    handoff: `${root}/handoff`,
    turn: (n) => `${root}/turn?n=${n}`,
    silence: (n) => `${root}/turn?n=${n}&silence=1`,
    poll: (n, attempt) => `${root}/poll?n=${n}&attempt=${attempt}`,
  };
}
