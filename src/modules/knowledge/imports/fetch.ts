import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import zlib from 'node:zlib';
import robotsModule from 'robots-parser';
import { guardedLookup } from '../../../shared/guarded-http.js';
import {
  TargetRefusedError,
  hostOf,
  parseWebhookUrl,
  resolveAllowedAddresses,
} from '../../../shared/ssrf.js';
import { ImportDocumentError, importErrors } from './errors.js';

/**
 * Fetching web pages, robots.txt and sitemaps for imports, through the webhooks' SSRF guard:
 * every address a host resolves to is checked when the connection is made (so DNS rebinding is
 * refused too), redirects are followed by hand and each target is checked again, bodies are cut
 * off at the size limit and the whole fetch, redirects included, has one deadline.
 */

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
}

export interface Fetched {
  /** The URL that answered, after redirects. */
  url: string;
  mediaType: string | null;
  body: Buffer;
}

export const USER_AGENT = 'ParleyBot/1.0 (knowledge import)';
export const ROBOTS_AGENT = 'ParleyBot';
export const MAX_REDIRECTS = 5;
const ROBOTS_MAX_BYTES = 512 * 1024;

/** A URL for an import: http(s), no user name or password; the fragment is dropped. */
export function importUrl(raw: string): URL {
  const url = parseWebhookUrl(raw.trim());
  url.hash = '';
  return url;
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** One GET without following redirects; the answer's status, location and body. */
function getOnce(
  url: URL,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<{ status: number; location?: string; mediaType: string | null; body: Buffer }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'GET',
      headers: { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'gzip, deflate, br' },
      lookup: guardedLookup(limits.allowPrivate),
      agent: false,
      signal,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      const mediaType = response.headers['content-type'] ?? null;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        resolve({ status, location, mediaType, body: Buffer.alloc(0) });
        return;
      }
      if (Number(response.headers['content-length']) > limits.maxBytes) {
        response.destroy();
        reject(importErrors.tooLarge(limits.maxBytes));
        return;
      }
      const decoded = decodedStream(response, response.headers['content-encoding'], limits.maxBytes);
      const chunks: Buffer[] = [];
      let size = 0;
      decoded.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          response.destroy();
          decoded.destroy();
          reject(importErrors.tooLarge(limits.maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      decoded.on('end', () => resolve({ status, mediaType, body: Buffer.concat(chunks) }));
      decoded.on('error', (error: Error & { code?: string }) =>
        reject(error.code === 'ERR_BUFFER_TOO_LARGE' ? importErrors.tooLarge(limits.maxBytes) : error),
      );
      response.on('error', reject);
    });
    request.end();
  });
}

/** The body as sent, or decompressed; the size limit applies to the decompressed bytes. */
function decodedStream(
  response: http.IncomingMessage,
  encoding: string | undefined,
  maxBytes: number,
): NodeJS.ReadableStream & { destroy(): void } {
  const options = { maxOutputLength: maxBytes + 1 };
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip(options)
      : encoding === 'deflate'
        ? zlib.createInflate(options)
        : encoding === 'br'
          ? zlib.createBrotliDecompress(options)
          : null;
  return decoder ? response.pipe(decoder) : response;
}

/**
 * GETs a URL for an import. Throws ImportDocumentError with a sentence for people: refused
 * address, HTTP status, timeout, size limit, too many redirects, unreachable.
 */
export async function guardedGet(rawUrl: string, limits: FetchLimits): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  let url: URL;
  try {
    url = importUrl(rawUrl);
  } catch {
    throw importErrors.fetchFailed();
  }
  try {
    for (let redirects = 0; ; redirects += 1) {
      // Literal IP hosts skip the lookup hook, so they are checked here.
      if (isIP(hostOf(url))) await resolveAllowedAddresses(hostOf(url), limits.allowPrivate);
      const answer = await getOnce(url, limits, controller.signal);
      if (answer.location !== undefined) {
        if (redirects >= MAX_REDIRECTS) throw importErrors.tooManyRedirects(MAX_REDIRECTS);
        url = importUrl(new URL(answer.location, url).toString());
        continue;
      }
      if (answer.status < 200 || answer.status >= 300) throw new HttpStatusError(answer.status);
      return { url: url.toString(), mediaType: answer.mediaType, body: answer.body };
    }
  } catch (error) {
    if (error instanceof ImportDocumentError) throw error;
    if (error instanceof HttpStatusError) throw importErrors.httpStatus(error.status);
    if (error instanceof TargetRefusedError) throw importErrors.refusedAddress(url.host);
    if (controller.signal.aborted) throw importErrors.timeout(limits.timeoutMs);
    throw importErrors.fetchFailed();
  } finally {
    clearTimeout(timer);
  }
}

export type RobotsRules = { isAllowed(url: string, agent: string): boolean | undefined };

// The package is CommonJS exporting the function itself; its types declare it as `default`.
const robotsParser = robotsModule as unknown as (url: string, contents: string) => RobotsRules;

/**
 * The robots.txt rules of URLs' origins, fetched once per origin (per import step). Following
 * RFC 9309: 4xx answers allow everything; an unreachable file or a 5xx answer disallows
 * everything; a host the SSRF guard refuses is reported as refused.
 */
export class RobotsCache {
  private readonly rules = new Map<string, Promise<RobotsRules>>();

  constructor(private readonly limits: FetchLimits) {}

  async check(rawUrl: string): Promise<void> {
    const url = importUrl(rawUrl);
    const robots = await this.rulesOf(url.origin);
    if (robots.isAllowed(url.toString(), ROBOTS_AGENT) === false) {
      throw importErrors.robotsDisallowed(url.toString());
    }
  }

  private rulesOf(origin: string): Promise<RobotsRules> {
    let rules = this.rules.get(origin);
    if (!rules) {
      rules = this.load(origin);
      this.rules.set(origin, rules);
    }
    return rules;
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const fetched = await guardedGet(robotsUrl, { ...this.limits, maxBytes: ROBOTS_MAX_BYTES });
      return robotsParser(robotsUrl, fetched.body.toString('utf8'));
    } catch (error) {
      if (error instanceof ImportDocumentError) {
        if (error.code === 'refused_address') throw error;
        if (error.code === 'http_status' && (error.status ?? 500) < 500) return robotsParser(robotsUrl, '');
        if (error.code === 'too_large') return robotsParser(robotsUrl, '');
      }
      return { isAllowed: () => false };
    }
  }
}

const LOC = /<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]]+?)\s*(?:\]\]>)?\s*<\/loc>/gi;

function xmlText(value: string): string {
  return value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');
}

/** The `<loc>` URLs of a sitemap and whether it is an index of further sitemaps. */
export function parseSitemap(xml: string): { index: boolean; urls: string[] } {
  const index = /<sitemapindex[\s>]/i.test(xml);
  if (!index && !/<urlset[\s>]/i.test(xml)) throw importErrors.notASitemap();
  return { index, urls: [...xml.matchAll(LOC)].map((match) => xmlText(match[1]!)) };
}

function sitemapText(body: Buffer, maxBytes: number): string {
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return zlib.gunzipSync(body, { maxOutputLength: maxBytes }).toString('utf8');
    } catch {
      throw importErrors.tooLarge(maxBytes);
    }
  }
  return body.toString('utf8');
}

/** Nested sitemaps read from one sitemap index. */
const MAX_CHILD_SITEMAPS = 20;

/**
 * The page URLs of a sitemap (or of the sitemaps a sitemap index lists, one level deep), on
 * the sitemap's own origin as the sitemap protocol requires, without duplicates; at most
 * maxPages, and how many it listed in all.
 */
export async function readSitemap(
  sitemapUrl: string,
  limits: FetchLimits,
  robots: RobotsCache,
  maxPages: number,
): Promise<{ urls: string[]; listed: number }> {
  const origin = importUrl(sitemapUrl).origin;
  const pages = new Set<string>();
  const add = (raw: string) => {
    try {
      const url = importUrl(raw);
      if (url.origin === origin) pages.add(url.toString());
    } catch {
      // An invalid <loc> is skipped.
    }
  };
  await robots.check(sitemapUrl);
  const root = parseSitemap(sitemapText((await guardedGet(sitemapUrl, limits)).body, limits.maxBytes));
  if (!root.index) root.urls.forEach(add);
  else {
    for (const child of root.urls.slice(0, MAX_CHILD_SITEMAPS)) {
      if (pages.size > maxPages) break;
      try {
        if (importUrl(child).origin !== origin) continue;
        await robots.check(child);
        const nested = parseSitemap(sitemapText((await guardedGet(child, limits)).body, limits.maxBytes));
        if (!nested.index) nested.urls.forEach(add);
      } catch (error) {
        if (!(error instanceof ImportDocumentError)) throw error;
        // An unreadable nested sitemap leaves out its pages; the others are still imported.
      }
    }
  }
  return { urls: [...pages].slice(0, maxPages), listed: pages.size };
}
