/**
 * Voice notes as text, when the operator configures a transcription provider
 * (`TRANSCRIPTION_BASE_URL`, an OpenAI-compatible `POST {base}/audio/transcriptions`):
 *
 *   fetch       Meta: `GET {graph}/{media-id}` with the access token names the file's URL (on
 *               Meta's media host), then its bytes with the same token; Twilio: `MediaUrl0` with
 *               the account's basic auth (on the configured Twilio host), whose redirect to
 *               Twilio's media store is followed without credentials.
 *   transcribe  the bytes as a multipart upload (`file`, `model`); the answer's `text`.
 *
 * A voice note larger than `TRANSCRIPTION_MAX_BYTES`, a provider that fails or answers late,
 * or an empty transcript gives null: the customer is then told that only text is read, as
 * without transcription. Tokens go only to the provider's own hosts (see guards.ts); the audio
 * is never stored.
 */
import type { AppContext } from '../../shared/context.js';
import { checkProviderUrl } from './guards.js';
import type { ConnectionRow, VoiceMedia } from './repository.js';
import { channelSecretsFor, openedOrEmpty } from './secret-store.js';

type Settings = AppContext['config']['messaging'];

/** Meta serves media files from its own CDN hosts, not from the Graph API's host. */
const META_MEDIA_HOSTS = ['.fbsbx.com', '.facebook.com', '.whatsapp.net'];

/** Longest transcript handed to the engine. */
const MAX_TRANSCRIPT_CHARS = 4000;

export function transcriptionConfigured(settings: Settings): boolean {
  return Boolean(settings.transcription.baseUrl);
}

/** The voice note's text, or null when it cannot be read (the caller tells the customer). */
export async function transcribeVoiceNote(
  ctx: Pick<AppContext, 'config'>,
  conn: ConnectionRow,
  media: VoiceMedia,
): Promise<string | null> {
  const settings = ctx.config.messaging;
  if (!transcriptionConfigured(settings)) return null;
  const signal = AbortSignal.timeout(settings.transcription.timeoutMs);
  try {
    const audio = await fetchAudio(ctx, conn, media, signal);
    if (!audio) return null;
    return await transcribe(settings, audio, signal);
  } catch {
    return null;
  }
}

interface Audio {
  bytes: Buffer<ArrayBuffer>;
  type: string;
}

async function fetchAudio(
  ctx: Pick<AppContext, 'config'>,
  conn: ConnectionRow,
  media: VoiceMedia,
  signal: AbortSignal,
): Promise<Audio | null> {
  const settings = ctx.config.messaging;
  const secrets = channelSecretsFor(ctx.config);
  const max = settings.transcription.maxBytes;
  if (conn.kind === 'whatsapp_cloud') {
    if (!media.id || !/^[0-9A-Za-z_-]{1,100}$/.test(media.id)) return null;
    const token = openedOrEmpty(secrets, conn, 'access_token');
    if (!token) return null;
    const base = settings.graphBaseUrl.replace(/\/+$/, '');
    const infoUrl = `${base}/${media.id}`;
    checkProviderUrl(infoUrl, base);
    const auth = { authorization: `Bearer ${token}` };
    const info = await fetch(infoUrl, { headers: auth, signal, redirect: 'error' });
    if (!info.ok) return null;
    const meta = (await info.json()) as { url?: unknown; file_size?: unknown; mime_type?: unknown };
    if (typeof meta.url !== 'string' || Number(meta.file_size ?? 0) > max) return null;
    if (!metaMediaHost(meta.url, base)) return null;
    const file = await fetch(meta.url, { headers: auth, signal, redirect: 'error' });
    const type = typeof meta.mime_type === 'string' ? meta.mime_type : media.mime_type;
    return file.ok ? capped(file, max, type) : null;
  }
  if (!media.url) return null;
  const token = openedOrEmpty(secrets, conn, 'auth_token');
  const sid = conn.settings.account_sid;
  if (!token || !sid) return null;
  checkProviderUrl(media.url, settings.twilioApiBaseUrl);
  const basic = Buffer.from(`${sid}:${token}`).toString('base64');
  let file = await fetch(media.url, {
    headers: { authorization: `Basic ${basic}` },
    signal,
    redirect: 'manual',
  });
  const location = file.headers.get('location');
  if (file.status >= 300 && file.status < 400 && location) {
    // Twilio's media store: a signed https URL, fetched without the account's credentials.
    const target = new URL(location, media.url);
    if (target.protocol !== 'https:' && target.host !== new URL(media.url).host) return null;
    file = await fetch(target, { signal, redirect: 'error' });
  }
  return file.ok ? capped(file, max, media.mime_type) : null;
}

/** Meta's media URL: on one of Meta's media hosts over https, or on the configured Graph host. */
function metaMediaHost(url: string, base: string): boolean {
  const target = new URL(url);
  if (target.host === new URL(base).host) return target.protocol === 'https:' || target.protocol === 'http:';
  return target.protocol === 'https:' && META_MEDIA_HOSTS.some((suffix) => target.hostname.endsWith(suffix));
}

/** The body's bytes, or null when it is longer than `max` (read no further than that). */
async function capped(response: Response, max: number, fallbackType: string): Promise<Audio | null> {
  if (Number(response.headers.get('content-length') ?? 0) > max) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let part = await reader?.read(); part && !part.done; part = await reader!.read()) {
    size += part.value.length;
    if (size > max) {
      await reader!.cancel();
      return null;
    }
    chunks.push(Buffer.from(part.value));
  }
  const type = response.headers.get('content-type')?.split(';')[0]?.trim() || fallbackType;
  return { bytes: Buffer.concat(chunks), type };
}

const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'm4a',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'audio/webm': 'webm',
};

async function transcribe(settings: Settings, audio: Audio, signal: AbortSignal): Promise<string | null> {
  const { baseUrl, apiKey, model } = settings.transcription;
  const form = new FormData();
  const extension = EXTENSIONS[audio.type] ?? 'ogg';
  form.append('file', new Blob([audio.bytes], { type: audio.type }), `voice-note.${extension}`);
  form.append('model', model);
  form.append('response_format', 'json');
  const response = await fetch(`${baseUrl!.replace(/\/+$/, '')}/audio/transcriptions`, {
    method: 'POST',
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    body: form,
    signal,
    redirect: 'error',
  });
  if (!response.ok) return null;
  const answer = (await response.json()) as { text?: unknown };
  const text = typeof answer.text === 'string' ? answer.text.trim() : '';
  return text ? text.slice(0, MAX_TRANSCRIPT_CHARS) : null;
}
