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
import { openSecret, type SecretStore } from '../../mailboxes/secret-store.js';
import type { Verdict } from '../../outbox/index.js';
import { headersFromPairs } from '../../email/index.js';
import { attachmentType, type InboundAttachment } from './attachments.js';
import type { InboundMail } from './inbound.js';
import { rebuildMime } from './mime.js';
import { MAX_RAW_BYTES } from './parse.js';
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
  const clientSecret = () => openSecret(secrets, mailbox, 'client_secret');
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
    // Links Graph hands back (next and delta links) are followed only on Graph's own origin.
    if (new URL(url).origin !== new URL(email.graphApiUrl).origin) {
      throw new GraphError('a link outside the Graph API was not followed', undefined);
    }
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
  replyTo?: GraphRecipient[];
  ccRecipients?: GraphRecipient[];
  toRecipients?: GraphRecipient[];
  receivedDateTime?: string;
  body?: { contentType?: string; content?: string };
  internetMessageHeaders?: Array<{ name: string; value: string }>;
  isRead?: boolean;
  /** True when the mail has attachments other than pictures in its body. */
  hasAttachments?: boolean;
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
    addresses: {
      from: [structured(message.from ?? message.sender)].filter((a) => a !== null),
      replyTo: (message.replyTo ?? []).map(structured).filter((a) => a !== null),
      cc: (message.ccRecipients ?? []).map(structured).filter((a) => a !== null),
    },
  };
}

function structured(recipient: GraphRecipient | undefined): { name: string; address: string } | null {
  const address = recipient?.emailAddress?.address;
  return address ? { name: recipient?.emailAddress?.name ?? '', address } : null;
}

/**
 * The mail as received, for download: Graph's MIME of the message (`GET …/messages/{id}/$value`),
 * the original bytes. When Graph does not give it (an error, no answer, or larger than a mail
 * that is read), a MIME rebuilt from the message's properties, internet headers, body and the
 * attachments read (mime.ts, marked `X-Parley-Rebuilt: graph-json`). Never fails the round.
 */
export async function graphRaw(
  client: GraphClient,
  mailbox: MailboxRow,
  message: GraphMessage,
  mail: InboundMail,
): Promise<Buffer> {
  const url = `/users/${encodeURIComponent(mailbox.address)}/messages/${encodeURIComponent(message.id)}/$value`;
  try {
    const response = await client.request('GET', url);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (response.ok && length <= MAX_RAW_BYTES) {
      const body = Buffer.from(await response.arrayBuffer());
      if (body.length > 0 && body.length <= MAX_RAW_BYTES) return body;
    } else {
      await response.body?.cancel();
    }
  } catch {
    // rebuilt below
  }
  const people = (list: GraphRecipient[] | undefined) =>
    (list ?? []).map(structured).filter((a) => a !== null);
  return rebuildMime({
    source: 'graph-json',
    from: people([message.from ?? message.sender ?? {}]),
    to: people(message.toRecipients),
    cc: people(message.ccRecipients),
    replyTo: people(message.replyTo),
    subject: message.subject ?? null,
    date: mail.headers['date']?.[0] ?? message.receivedDateTime ?? null,
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    headers: (message.internetMessageHeaders ?? []).map((h) => ({ name: h.name, value: h.value })),
    text: mail.html === null ? mail.text : null,
    html: mail.html ?? null,
    attachments: (mail.attachments ?? [])
      .filter((a) => !a.refused && a.content.length > 0)
      .map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
  });
}

const SELECT =
  'id,internetMessageId,subject,from,sender,replyTo,toRecipients,ccRecipients,receivedDateTime,body,internetMessageHeaders,isRead,hasAttachments';

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

/** An entry of a message's attachments collection (Graph's attachment resource and its subtypes). */
export interface GraphAttachment {
  '@odata.type'?: string;
  id?: string;
  name?: string | null;
  contentType?: string | null;
  size?: number;
  isInline?: boolean;
  /** fileAttachment only: the content, base64. */
  contentBytes?: string;
}

/** The bytes base64 text decodes to (4 characters per 3 bytes, less the padding), without decoding it. */
function base64Bytes(encoded: string): number {
  const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((encoded.length * 3) / 4) - padding);
}

const FILE_ATTACHMENT = '#microsoft.graph.fileAttachment';
/** The attachment's properties without its content (a mailbox that reads no attachments). */
const ATTACHMENT_SELECT = 'id,name,contentType,size,isInline';

/**
 * A message's attachments as arrived attachments (the rules of attachments.ts decide what the
 * bot reads): the `attachments` collection page by page (`@odata.nextLink`). File attachments
 * bring their content base64; it is decoded only when it may be read: the mailbox reads
 * attachments, the media type is on the list, and the size Graph gives (or the content's, when
 * larger) is within the limits of one attachment and of all together. Pictures in the body
 * (`isInline`) are left out as with IMAP; an attached Outlook item (itemAttachment) or a
 * link to a cloud file (referenceAttachment) is kept with the reason `not_a_file`. Without
 * `read_attachments` only the properties are fetched, not the content.
 */
export async function graphAttachments(
  client: GraphClient,
  mailbox: MailboxRow,
  messageId: string,
  limits: Pick<Config['email'], 'attachmentMaxBytes' | 'attachmentsMaxTotalBytes' | 'attachmentTypes'>,
): Promise<InboundAttachment[]> {
  const allowed = mailbox.settings.read_attachments === true;
  let url = `/users/${encodeURIComponent(mailbox.address)}/messages/${encodeURIComponent(messageId)}/attachments${
    allowed ? '' : `?$select=${ATTACHMENT_SELECT}`
  }`;
  const attachments: InboundAttachment[] = [];
  let totalBytes = 0;
  for (let page = 0; page < 50; page += 1) {
    const response = await client.request('GET', url);
    if (!response.ok) throw await failure(response, 'attachments query failed');
    const body = (await response.json()) as { value?: GraphAttachment[]; '@odata.nextLink'?: string };
    for (const entry of body.value ?? []) {
      const filename = entry.name ?? null;
      const contentType = (entry.contentType ?? 'application/octet-stream').toLowerCase();
      if (entry['@odata.type'] !== FILE_ATTACHMENT) {
        attachments.push({
          filename,
          contentType,
          size: entry.size ?? 0,
          content: Buffer.alloc(0),
          refused: 'not_a_file',
        });
        continue;
      }
      if (entry.isInline === true) continue;
      const encoded = entry.contentBytes ?? '';
      const size = Math.max(entry.size ?? 0, base64Bytes(encoded));
      const readable =
        allowed &&
        limits.attachmentTypes.includes(attachmentType({ contentType, filename })) &&
        size <= limits.attachmentMaxBytes &&
        totalBytes + size <= limits.attachmentsMaxTotalBytes;
      if (readable) totalBytes += size;
      attachments.push({
        filename,
        contentType,
        size,
        content: readable ? Buffer.from(encoded, 'base64') : Buffer.alloc(0),
      });
    }
    const next = body['@odata.nextLink'];
    if (!next) return attachments;
    url = next;
  }
  throw new GraphError('attachments query did not end', undefined);
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
          // The recipients decided on receipt (Reply-To, the Cc kept), structured: Graph would
          // otherwise answer the original From.
          toRecipients: [{ emailAddress: { name: mail.to.name || undefined, address: mail.to.address } }],
          ccRecipients: mail.cc.map((a) => ({
            emailAddress: { name: a.name || undefined, address: a.address },
          })),
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
