import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { TargetRefusedError, hostOf, parseWebhookUrl, resolveAllowedAddresses } from './ssrf.js';

export interface PostResult {
  /** Undefined when no answer arrived (refused target, network error, timeout). */
  statusCode?: number;
  retryAfter?: string;
  /** The start of the answer's body, for the delivery log. */
  responseBody?: string;
  error?: string;
  durationMs: number;
}

const RESPONSE_BODY_LIMIT = 1000;

/**
 * Resolves and checks the host at connection time and connects to exactly the checked
 * addresses, so a DNS answer that changes between check and connect cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedAddresses(hostname, allowPrivate).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) {
          callback(
            new TargetRefusedError(
              `host '${hostname}' has no IPv${wanted} address`,
              'url_host_unresolvable',
              hostname,
            ),
            '',
            0,
          );
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}

/**
 * POSTs a JSON body without following redirects (a redirect could point anywhere, including
 * internal addresses). Never throws: every outcome is a PostResult.
 */
export async function postJson(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  let url: URL;
  try {
    url = parseWebhookUrl(rawUrl);
    // Literal IP hosts skip the lookup hook, so they are checked here.
    if (isIP(hostOf(url))) await resolveAllowedAddresses(hostOf(url), options.allowPrivate);
  } catch (error) {
    return { error: `refused: ${(error as Error).message}`, durationMs: elapsed() };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: guardedLookup(options.allowPrivate),
      agent: false,
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => {
      const refused = error instanceof TargetRefusedError ? 'refused: ' : '';
      finish({ error: `${refused}${error.message}`.slice(0, 500) });
    });
    request.on('response', (response) => {
      const retryAfter = response.headers['retry-after'];
      let text = '';
      const done = () => {
        finish({
          statusCode: response.statusCode,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          responseBody: text.slice(0, RESPONSE_BODY_LIMIT),
        });
        response.destroy();
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if (text.length >= RESPONSE_BODY_LIMIT) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
