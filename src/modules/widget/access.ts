/**
 * Who may call the widget's endpoints: the origin check, CORS and the visitor token.
 *
 * Every widget request must carry an `Origin` header (browsers always send it on cross-origin
 * requests and on POST); one without is refused (403), so a copied token or publishable key is
 * of no use to a page of another site. An origin check stops other websites, not scripts: a
 * script can send any Origin. The rate limits and the daily budget are what stop scripts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import {
  SecretDecryptError,
  SecretKeyError,
  decryptSecret,
  secretKeyring,
  type SecretKeyring,
} from '../../shared/secrets.js';
import { findSettings, type WidgetSettingsRow } from './repository.js';
import {
  VERIFIED_MAX_AGE_SECONDS,
  identityFingerprint,
  identitySecretContext,
  keyFingerprint,
  readVisitorToken,
  type VisitorClaims,
} from './tokens.js';

const ALLOW_HEADERS = 'authorization, content-type, accept, last-event-id, idempotency-key';
const EXPOSE_HEADERS =
  'ratelimit-limit, ratelimit-remaining, ratelimit-reset, ratelimit-policy, retry-after, x-request-id';

export const forbiddenOrigin = (missing: boolean) =>
  new AppError(
    403,
    ErrorCode.forbidden,
    missing ? 'A widget request needs an Origin header' : 'This origin is not allowed for the widget',
    { details: { code: missing ? 'origin_missing' : 'origin_not_allowed' } },
  );

const VISITOR_401 = {
  visitor_token_invalid: 'Missing or invalid visitor token (Authorization: Bearer)',
  visitor_token_expired: 'The visitor token has expired; refresh it',
  publishable_key_invalid: 'Unknown or rotated publishable key',
  visitor_identity_rotated:
    "The bot's identity secret was rotated; start a new session with a new identity token",
  visitor_session_too_old:
    'The verified session reached its maximum age; start a new session with a new identity token',
} as const;

export const unauthorizedVisitor = (code: keyof typeof VISITOR_401) =>
  new AppError(401, ErrorCode.unauthorized, VISITOR_401[code], { details: { code } });

/** The fingerprint of the bot's current identity secret; undefined without one (or when it does not open). */
export function currentIdentityFingerprint(
  keyring: SecretKeyring,
  settings: Pick<WidgetSettingsRow, 'bot_id' | 'identity_secret'>,
): string | undefined {
  if (!settings.identity_secret) return undefined;
  try {
    const secret = decryptSecret(keyring, settings.identity_secret, identitySecretContext(settings.bot_id));
    return identityFingerprint(keyring, secret);
  } catch (error) {
    if (error instanceof SecretDecryptError) return undefined;
    throw error;
  }
}

/** The claims a verified session adds: the fingerprint of the identity secret it was checked with. */
export function identityClaims(
  keyring: SecretKeyring,
  settings: Pick<WidgetSettingsRow, 'bot_id' | 'identity_secret'>,
): { idf?: string } {
  const idf = currentIdentityFingerprint(keyring, settings);
  return idf ? { idf } : {};
}

/**
 * A verified session holds while the identity secret it was checked with is the bot's current
 * one and its first token is at most VERIFIED_MAX_AGE_SECONDS old; unverified sessions pass.
 */
export function checkVerifiedSession(
  keyring: SecretKeyring,
  claims: Pick<VisitorClaims, 'verified' | 'idf' | 'first'>,
  settings: Pick<WidgetSettingsRow, 'bot_id' | 'identity_secret'>,
  nowMs = Date.now(),
): void {
  if (!claims.verified) return;
  const current = currentIdentityFingerprint(keyring, settings);
  if (!current || claims.idf !== current) throw unauthorizedVisitor('visitor_identity_rotated');
  if (typeof claims.first !== 'number' || nowMs - claims.first * 1000 > VERIFIED_MAX_AGE_SECONDS * 1000)
    throw unauthorizedVisitor('visitor_session_too_old');
}

export const widgetDisabled = () =>
  new AppError(403, ErrorCode.forbidden, 'The widget of this bot is switched off', {
    details: { code: 'widget_disabled' },
  });

/**
 * The request's Origin in its canonical form (`scheme://host[:port]`, lower case, default port
 * dropped); undefined when absent, `null` or not a http(s) origin.
 */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const header = request.headers.origin;
  if (typeof header !== 'string') return undefined;
  return canonicalOrigin(header);
}

export function canonicalOrigin(value: string): string | undefined {
  if (value === 'null' || value.length > 300) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '')) return undefined;
    if (url.search || url.hash) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether the browser says the request comes from a page of the service's own origin
 * (`Sec-Fetch-Site: same-origin`): browsers send no Origin header on a same-origin GET.
 */
export function sameOriginFetch(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-site'] === 'same-origin';
}

/** The Origin header, or 403 when there is none. */
export function requireOrigin(request: FastifyRequest): string {
  const origin = requestOrigin(request);
  if (!origin) throw forbiddenOrigin(true);
  return origin;
}

export function originAllowed(settings: Pick<WidgetSettingsRow, 'allowed_origins'>, origin: string): boolean {
  return settings.allowed_origins.includes(origin);
}

/**
 * Whether the origin is the service's own: the hosted share page /c/<bot> runs there. That is
 * the origin of PUBLIC_BASE_URL, or the host the browser addressed: host and port compared with
 * the request's Host (behind a proxy: the forwarded host with TRUST_PROXY), so a scheme
 * rewritten by a TLS proxy does not matter.
 */
export function isOwnOrigin(request: FastifyRequest, origin: string, publicBaseUrl?: string): boolean {
  if (publicBaseUrl && canonicalOrigin(publicBaseUrl.replace(/\/+$/, '')) === origin) return true;
  const host = request.host;
  if (!host) return false;
  try {
    return new URL(origin).host === new URL(`${new URL(origin).protocol}//${host}`).host;
  } catch {
    return false;
  }
}

/**
 * How a page may use a bot's widget: `widget` for an origin the bot lists, `share` for the
 * service's own origin while the bot's share link is on (its hosted page), else undefined.
 */
export function entryOf(
  settings: Pick<WidgetSettingsRow, 'allowed_origins' | 'share_link_enabled'>,
  origin: string,
  request: FastifyRequest,
  publicBaseUrl?: string,
): 'widget' | 'share' | undefined {
  if (settings.share_link_enabled && isOwnOrigin(request, origin, publicBaseUrl)) return 'share';
  if (originAllowed(settings, origin)) return 'widget';
  return undefined;
}

/** The widget switch applies to websites; the share page follows its own switch. */
export function requireOpen(settings: Pick<WidgetSettingsRow, 'enabled'>, entry: 'widget' | 'share'): void {
  if (entry === 'widget' && !settings.enabled) throw widgetDisabled();
}

/** CORS headers for an origin the bot lists (never `*`, never credentials: no cookies are used). */
export function allowCors(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
}

export function preflightHeaders(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  reply.header('access-control-allow-headers', ALLOW_HEADERS);
  reply.header('access-control-max-age', '600');
}

/** The deployment's secret keys; a missing key on PostgreSQL is a 503 with a clear code. */
export function keyringOf(ctx: AppContext): SecretKeyring {
  try {
    return secretKeyring(ctx.config);
  } catch (error) {
    if (error instanceof SecretKeyError) {
      throw new AppError(503, ErrorCode.unavailable, 'PARLEY_SECRET_KEY is not configured', {
        details: { code: 'secret_key_missing' },
      });
    }
    throw error;
  }
}

export interface Visitor {
  claims: VisitorClaims;
  settings: WidgetSettingsRow;
  origin: string;
}

const visitors = new WeakMap<FastifyRequest, Visitor>();

export function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * Checks a widget call: Origin present, a valid unexpired visitor token, the widget still on,
 * the publishable key it was issued under still current, the origin the token's own and still
 * listed. Sets the CORS headers once the origin is known to be allowed.
 */
export async function authenticateVisitor(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { allowExpired?: boolean } = {},
): Promise<Visitor> {
  const sent = requestOrigin(request);
  // A same-origin GET (the share page's transcript and events) carries no Origin header.
  if (!sent && !sameOriginFetch(request)) throw forbiddenOrigin(true);
  const token = bearer(request);
  const check = token ? readVisitorToken(keyringOf(ctx), token) : { ok: false as const };
  if (!check.ok) throw unauthorizedVisitor('visitor_token_invalid');
  const { claims } = check;
  const origin =
    sent ?? (isOwnOrigin(request, claims.origin, ctx.config.publicBaseUrl) ? claims.origin : undefined);
  if (!origin) throw forbiddenOrigin(true);
  const settings = await findSettings(ctx.db, claims.tenant_id, claims.bot_id);
  // A token from another origin, or an origin no longer listed: as if from a foreign site.
  const entry =
    settings && claims.origin === origin
      ? entryOf(settings, origin, request, ctx.config.publicBaseUrl)
      : undefined;
  if (!settings || !entry) throw forbiddenOrigin(false);
  allowCors(reply, origin);
  requireOpen(settings, entry);
  if (keyFingerprint(settings.publishable_key) !== claims.key)
    throw unauthorizedVisitor('publishable_key_invalid');
  checkVerifiedSession(keyringOf(ctx), claims, settings);
  if (check.expired) {
    const refreshUntil = (claims.exp + ctx.config.widget.refreshWindowHours * 3600) * 1000;
    if (!options.allowExpired || refreshUntil <= Date.now())
      throw unauthorizedVisitor('visitor_token_expired');
  }
  const visitor = { claims, settings, origin };
  visitors.set(request, visitor);
  return visitor;
}

export function visitorOf(request: FastifyRequest): Visitor {
  const visitor = visitors.get(request);
  if (!visitor) throw new Error('route is missing authenticateVisitor');
  return visitor;
}
