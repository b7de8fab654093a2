/**
 * Visitor tokens and identity tokens of the widget.
 *
 * A visitor token is `wvt1.<payload>.<signature>` (base64url): the payload names tenant, bot,
 * visitor, origin, whether the identity was verified, the publishable key it was issued under
 * (a short hash: rotating the key ends its sessions) and the expiry; the signature is an
 * HMAC-SHA256 with a key derived from the deployment's secret keys, so every instance checks it
 * without the database. It travels only in `Authorization: Bearer`.
 *
 * A verified token also carries a fingerprint of the bot's identity secret (`idf`, an HMAC under
 * a key of the deployment, so it says nothing about the secret): once the secret is rotated, the
 * fingerprint no longer matches and the session ends at its next call. Every token carries the
 * time its session was first issued (`first`); a refresh keeps it, so a verified session lives
 * at most VERIFIED_MAX_AGE_SECONDS without a new identity token.
 *
 * An identity token is an HS256 JWT the tenant's backend signs with the bot's identity secret:
 * `{visitor_id, name?, email?, exp}`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretKeyring } from '../../shared/secrets.js';

const PREFIX = 'wvt1';
const CONTEXT = 'parley widget visitor token v1';

export interface VisitorClaims {
  tenant_id: string;
  bot_id: string;
  visitor_id: string;
  origin: string;
  verified: boolean;
  /** Hash of the publishable key the session started under. */
  key: string;
  /** Epoch seconds. */
  exp: number;
  name?: string;
  email?: string;
  /** Epoch seconds of the session's first token (kept by refresh); stamped at issue when absent. */
  first?: number;
  /** Verified sessions: fingerprint of the identity secret the identity token was checked with. */
  idf?: string;
}

/** The longest a verified session lives from its first token on (refreshes included). */
export const VERIFIED_MAX_AGE_SECONDS = 30 * 86_400;

/** Context the identity secret is bound to when encrypted: it decrypts only for its bot. */
export const identitySecretContext = (botId: string) => `widget.identity:${botId}`;

/** Fingerprint of an identity secret: an HMAC under a key derived from the deployment's key. */
export function identityFingerprint(keyring: SecretKeyring, secret: string): string {
  const key = createHmac('sha256', keyring.keys.get(keyring.currentId)!)
    .update('parley widget identity fingerprint v1')
    .digest();
  return createHmac('sha256', key).update(secret).digest('base64url').slice(0, 22);
}

/** Prefix of server-issued (unverified) visitor ids; a verified id may not take it. */
export const ANONYMOUS_PREFIX = 'wv_';

export function newVisitorId(): string {
  return ANONYMOUS_PREFIX + randomBytes(18).toString('base64url');
}

export function keyFingerprint(publishableKey: string): string {
  return createHash('sha256').update(publishableKey).digest('base64url').slice(0, 16);
}

function signingKeys(keyring: SecretKeyring): { current: Buffer; all: Buffer[] } {
  const derive = (key: Buffer) => createHmac('sha256', key).update(CONTEXT).digest();
  return {
    current: derive(keyring.keys.get(keyring.currentId)!),
    all: [...keyring.keys.values()].map(derive),
  };
}

function sign(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(`${PREFIX}.${payload}`).digest();
}

export function issueVisitorToken(keyring: SecretKeyring, claims: VisitorClaims): string {
  const stamped = { ...claims, first: claims.first ?? Math.floor(Date.now() / 1000) };
  const payload = Buffer.from(JSON.stringify(stamped)).toString('base64url');
  return `${PREFIX}.${payload}.${sign(signingKeys(keyring).current, payload).toString('base64url')}`;
}

export type TokenCheck = { ok: true; claims: VisitorClaims; expired: boolean } | { ok: false };

/** Checks a visitor token's signature (any configured key) and reads it; expiry is reported, not refused. */
export function readVisitorToken(keyring: SecretKeyring, token: string, nowMs = Date.now()): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || token.length > 4096) return { ok: false };
  const [, payload, signature] = parts as [string, string, string];
  const presented = Buffer.from(signature, 'base64url');
  const valid = signingKeys(keyring).all.some((key) => {
    const expected = sign(key, payload);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  if (!valid) return { ok: false };
  let claims: VisitorClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as VisitorClaims;
  } catch {
    return { ok: false };
  }
  if (typeof claims.exp !== 'number' || typeof claims.visitor_id !== 'string') return { ok: false };
  return { ok: true, claims, expired: claims.exp * 1000 <= nowMs };
}

export interface Identity {
  visitor_id: string;
  name?: string;
  email?: string;
}

const MAX_IDENTITY_TOKEN = 4096;
const VISITOR_ID = /^[\w.@:+-]{1,200}$/;

/**
 * Verifies an HS256 identity token with the bot's secret: the header must name HS256 (no
 * `none`, no other algorithm), the signature is compared in constant time, `exp` must lie in
 * the future (at most one day ahead is not required; an expired token is refused), and
 * `visitor_id` must be a plain id that is not of the server's anonymous form.
 */
export function verifyIdentityToken(secret: string, token: string, nowMs = Date.now()): Identity | undefined {
  if (token.length > MAX_IDENTITY_TOKEN) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [headerText, payloadText, signatureText] = parts as [string, string, string];
  let header: unknown;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(headerText, 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(payloadText, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'HS256')
    return undefined;
  const expected = createHmac('sha256', secret).update(`${headerText}.${payloadText}`).digest();
  const presented = Buffer.from(signatureText, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { visitor_id: visitorId, name, email, exp } = payload;
  if (typeof exp !== 'number' || exp * 1000 <= nowMs) return undefined;
  if (typeof visitorId !== 'string' || !VISITOR_ID.test(visitorId) || visitorId.startsWith(ANONYMOUS_PREFIX))
    return undefined;
  return {
    visitor_id: visitorId,
    ...(typeof name === 'string' ? { name: name.slice(0, 200) } : {}),
    ...(typeof email === 'string' ? { email: email.slice(0, 255) } : {}),
  };
}

/** Signs an identity token (tests and documentation examples; tenants sign on their backend). */
export function signIdentityToken(secret: string, claims: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}
