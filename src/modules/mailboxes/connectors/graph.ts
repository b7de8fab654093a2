/**
 * Microsoft 365 through Microsoft Graph with application permissions: a client-credentials
 * token from the tenant's endpoint (cached until shortly before it expires; one app
 * registration may serve several mailboxes, so the cache is per tenant, client and secret),
 * new mail by the inbox's delta query, replies by createReply + send (the thread stays intact
 * in Outlook), and PATCH isRead once a mail is settled.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../../config.js';
import type { MailboxRow } from '../../mailboxes/repository.js';
import type { SecretStore } from '../../mailboxes/secret-store.js';
import type { Verdict } from '../../outbox/policy.js';
import { headersFromPairs } from '../../email/mail.js';
import type { InboundMail } from './inbound.js';
import type { OutgoingMail } from './smtp.js';

interface CachedToken {
  token: string;
  expiresAt: number;
}

const tokens = new Map<string, CachedToken>();
/** A token is renewed this long before it expires. */
const TOKEN_MARGIN_MS = 120_000;

export class GraphError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryAfter?: string,
  ) {
    super(message);
  }
}

export interface GraphClient {
  token(): Promise<{ token: string; expiresAt: Date }>;
  request(method: string, pathOrUrl: string, body?: unknown): Promise<Response>;
}

/** The Graph client of a mailbox. */
export function graphClient(mailbox: MailboxRow, secrets: SecretStore, email: Config['email']): GraphClient {
  const tenant = mailbox.settings.tenant_id ?? '';
  const clientId = mailbox.settings.client_id ?? '';
  const clientSecret = () => secrets.decryptSecret(mailbox.secrets.client_secret ?? '');
  const cacheKey = () =>
    createHash('sha256').update(`${tenant}\n${clientId}\n${clientSecret()}`).digest('hex');

  async function token(): Promise<{ token: string; expiresAt: Date }> {
    const key = cacheKey();
    const cached = tokens.get(key);
    if (cached && cached.expiresAt - TOKEN_MARGIN_MS > Date.now()) {
      return { token: cached.token, expiresAt: new Date(cached.expiresAt) };
    }
    const response = await fetch(
      `${email.graphLoginUrl.replace(/\/+$/, '')}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: clientId,
          client_secret: clientSecret(),
          scope: 'https://graph.microsoft.com/.default',
          grant_type: 'client_credentials',
        }),
        signal: AbortSignal.timeout(15_000),
      },
    );
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!response.ok || !body.access_token) {
      // AADSTS7000222: the client secret expired — said in words, it is the usual cause.
      const words = body.error_description?.split('\r\n')[0] ?? body.error ?? `HTTP ${response.status}`;
      throw new GraphError(`token request refused: ${words}`, response.status);
    }
    const expiresAt = Date.now() + (body.expires_in ?? 3600) * 1000;
    tokens.set(key, { token: body.access_token, expiresAt });
    return { token: body.access_token, expiresAt: new Date(expiresAt) };
  }

  async function request(method: string, pathOrUrl: string, body?: unknown): Promise<Response> {
    const { token: bearer } = await token();
    const url = /^https?:\/\//.test(pathOrUrl)
      ? pathOrUrl
      : `${email.graphApiUrl.replace(/\/+$/, '')}${pathOrUrl}`;
    return fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  }
  return { token, request };
}

async function failure(response: Response, what: string): Promise<GraphError> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  const words = body.error?.message ?? body.error?.code ?? `HTTP ${response.status}`;
  return new GraphError(
    `${what}: ${words}`,
    response.status,
    response.headers.get('retry-after') ?? undefined,
  );
}

interface GraphRecipient {
  emailAddress?: { address?: string; name?: string };
}

export interface GraphMessage {
  id: string;
  internetMessageId?: string;
  subject?: string;
  from?: GraphRecipient;
  sender?: GraphRecipient;
  body?: { contentType?: string; content?: string };
  internetMessageHeaders?: Array<{ name: string; value: string }>;
  isRead?: boolean;
  '@removed'?: unknown;
}

function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/div)\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** A Graph message as an arrived mail. */
export function graphMail(message: GraphMessage): InboundMail {
  const headers = headersFromPairs(message.internetMessageHeaders ?? []);
  const ids = (value: string | undefined) => value?.match(/<[^>]+>/g) ?? [];
  const content = message.body?.content ?? '';
  const html = message.body?.contentType === 'html' ? content : null;
  return {
    messageId: message.internetMessageId ?? `<graph.${message.id}@graph.invalid>`,
    from:
      (message.from?.emailAddress?.address ?? message.sender?.emailAddress?.address ?? '').toLowerCase() ||
      null,
    subject: message.subject ?? null,
    inReplyTo: ids(headers['in-reply-to']?.[0])[0] ?? null,
    references: ids(headers['references']?.join(' ')),
    text: html !== null ? htmlToText(content) : content,
    html,
    headers,
    contentType: headers['content-type']?.[0] ?? 'text/plain',
    providerId: message.id,
  };
}

const SELECT = 'id,internetMessageId,subject,from,sender,body,internetMessageHeaders,isRead';

/**
 * One delta round: the pages from the stored delta link (or the first query), the unread
 * messages in them, and the new delta link to store once they are settled.
 */
export async function deltaRound(
  client: GraphClient,
  mailbox: MailboxRow,
): Promise<{ messages: GraphMessage[]; deltaLink: string }> {
  const user = encodeURIComponent(mailbox.address);
  let url =
    (mailbox.cursor.delta_link as string | undefined) ??
    `/users/${user}/mailFolders/inbox/messages/delta?$select=${SELECT}`;
  const messages: GraphMessage[] = [];
  for (let page = 0; page < 100; page += 1) {
    const response = await client.request('GET', url);
    if (!response.ok) throw await failure(response, 'delta query failed');
    const body = (await response.json()) as {
      value?: GraphMessage[];
      '@odata.nextLink'?: string;
      '@odata.deltaLink'?: string;
    };
    for (const m of body.value ?? []) if (!m['@removed'] && m.isRead !== true) messages.push(m);
    if (body['@odata.deltaLink']) return { messages, deltaLink: body['@odata.deltaLink'] };
    if (!body['@odata.nextLink']) break;
    url = body['@odata.nextLink'];
  }
  throw new GraphError('delta query ended without a delta link', undefined);
}

export async function markRead(client: GraphClient, mailbox: MailboxRow, id: string): Promise<void> {
  const response = await client.request(
    'PATCH',
    `/users/${encodeURIComponent(mailbox.address)}/messages/${encodeURIComponent(id)}`,
    { isRead: true },
  );
  if (!response.ok) throw await failure(response, 'marking read failed');
}

function verdictOf(error: unknown): { verdict: Verdict; statusCode?: number; error: string } {
  if (error instanceof GraphError) {
    const status = error.status;
    if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
      return {
        verdict: { kind: 'permanent', reason: error.message.slice(0, 300) },
        statusCode: status,
        error: error.message,
      };
    }
    return {
      verdict: { kind: 'failed', retryAfter: error.retryAfter },
      statusCode: status,
      error: error.message,
    };
  }
  return { verdict: { kind: 'failed' }, error: (error as Error).message };
}

/**
 * Sends a reply through Graph: createReply on the customer's mail (Outlook keeps the thread),
 * our text and headers on the draft, then send. A draft left by an attempt that failed after
 * createReply is replaced by the next attempt's; only `send` delivers.
 */
export async function replyByGraph(
  client: GraphClient,
  mailbox: MailboxRow,
  parentProviderId: string,
  mail: OutgoingMail,
): Promise<{ verdict: Verdict; statusCode?: number; error?: string }> {
  const user = encodeURIComponent(mailbox.address);
  try {
    const created = await client.request(
      'POST',
      `/users/${user}/messages/${encodeURIComponent(parentProviderId)}/createReply`,
      {
        message: {
          body: { contentType: 'Text', content: mail.text },
          internetMessageHeaders: mail.automated
            ? [
                { name: 'X-Auto-Submitted', value: 'auto-replied' },
                { name: 'X-Auto-Response-Suppress', value: 'All' },
              ]
            : undefined,
        },
      },
    );
    if (!created.ok) throw await failure(created, 'createReply failed');
    const draft = (await created.json()) as { id: string };
    const sent = await client.request('POST', `/users/${user}/messages/${encodeURIComponent(draft.id)}/send`);
    if (!sent.ok) throw await failure(sent, 'send failed');
    return { verdict: { kind: 'sent' }, statusCode: sent.status };
  } catch (error) {
    return verdictOf(error);
  }
}

/** Forgets cached tokens (tests). */
export function clearGraphTokens(): void {
  tokens.clear();
}
