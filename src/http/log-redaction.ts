import type { FastifyRequest } from 'fastify';

/**
 * Credentials that reach the service in a URL (`?api_key=…`, `?x-internal-api-key=…`, a key
 * pasted into a path) are refused, but the URL is still logged with the request. Before it is
 * written, the value of every query parameter whose name looks like a credential, and every
 * token of the service's own secret formats anywhere in the URL, is replaced by `[redacted]`.
 */

/** Query parameter names that carry credentials: api_key, x-api-key, token, secret, password, … */
const CREDENTIAL_NAME =
  /(key|token|secret|passw|pwd|auth|session|signature|credential|cookie|bearer|jwt|otp)|^(sig|code|pass)$/i;

/** API keys, session tokens and webhook secrets of the service, and common provider keys. */
const SECRET_VALUE = /\b(?:svc_|pst_|whsec_|sk-|sk_live_|sk_test_|rk_live_|rk_test_)[A-Za-z0-9_\-+=.%]+/g;

export const REDACTED = '[redacted]';

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/** The URL (path and query) with credential values replaced; everything else kept as sent. */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  let result = path.replace(SECRET_VALUE, REDACTED);
  if (question !== -1) {
    const query = url
      .slice(question + 1)
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals === -1) return pair.replace(SECRET_VALUE, REDACTED);
        const name = pair.slice(0, equals);
        return CREDENTIAL_NAME.test(decodedName(name))
          ? `${name}=${REDACTED}`
          : `${name}=${pair.slice(equals + 1).replace(SECRET_VALUE, REDACTED)}`;
      })
      .join('&');
    result += `?${query}`;
  }
  return result;
}

/** Fastify's request log serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
