import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphCall {
  method: string;
  path: string;
  body: string;
  authorization: string | undefined;
}

/** An attachment as Graph stores it: a file (with content), an attached Outlook item, or a link to a cloud file. */
export type FakeAttachment =
  | {
      kind: 'file';
      name: string;
      contentType: string;
      content: Buffer;
      /** The size Graph reports (default the content's length). */
      size?: number;
      isInline?: boolean;
    }
  | { kind: 'item' | 'reference'; name: string; size?: number };

export interface FakeMessage {
  id: string;
  internetMessageId: string;
  subject: string;
  from: string;
  /** The sender's display name (default "Kunde"). */
  fromName?: string;
  /** Graph's `replyTo` and `ccRecipients` addresses. */
  replyTo?: string[];
  cc?: string[];
  text: string;
  headers?: Array<{ name: string; value: string }>;
  isRead?: boolean;
  attachments?: FakeAttachment[];
  /** The message's MIME as `$value` gives it (default: one built from the fields above). */
  mime?: Buffer;
}

/**
 * A local stand-in for the Microsoft identity platform's token endpoint and the Graph
 * endpoints the connector uses, with Microsoft's published request and response shapes:
 * `POST /{tenant}/oauth2/v2.0/token` (client credentials), the inbox's messages delta query
 * (`@odata.nextLink` / `@odata.deltaLink`, the `$select` of the first query kept in the delta
 * link as Graph does), a message's `attachments` (fileAttachment, itemAttachment,
 * referenceAttachment; `$select`, pages of `attachmentPageSize` with `@odata.nextLink`),
 * `createReply`, `send`, `PATCH` of a message, and the inbox folder (connection check).
 */
export interface FakeGraph {
  loginUrl: string;
  apiUrl: string;
  calls: GraphCall[];
  /** Mails that arrive in the inbox (seen by the next delta round). */
  deliver(message: FakeMessage): void;
  /** The token endpoint refuses with this error description (e.g. an expired secret). */
  refuseTokens(description: string | null): void;
  tokenRequests: number;
  /** Entries per page of a message's attachments (Graph pages large collections). */
  attachmentPageSize: number;
  /** The attachments endpoint answers with this status (e.g. 503) until set back to null. */
  failAttachments(status: number | null): void;
  /** A message's `$value` (its MIME) answers with this status until set back to null. */
  failMime(status: number | null): void;
  sent: Array<{
    replyTo: string;
    comment: string;
    headers: unknown;
    toRecipients?: unknown;
    ccRecipients?: unknown;
  }>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
  });
}

export async function startFakeGraph(): Promise<FakeGraph> {
  const calls: GraphCall[] = [];
  const inbox: FakeMessage[] = [];
  const drafts = new Map<string, FakeGraph['sent'][number]>();
  const sent: FakeGraph['sent'] = [];
  let refusal: string | null = null;
  const state = {
    tokenRequests: 0,
    attachmentPageSize: 2,
    attachmentFailure: null as number | null,
    mimeFailure: null as number | null,
  };
  let base = '';
  let deltaSeq = 0;
  // delta token → how many inbox messages it has seen, and the $select of the query it continues
  const deltaTokens = new Map<string, { seen: number; select: string | null }>();

  /** Only the properties a `$select` names (and what Graph always gives: the type and the id). */
  const selected = (entry: Record<string, unknown>, select: string | null) =>
    select === null
      ? entry
      : Object.fromEntries(
          Object.entries(entry).filter(
            ([key]) => key === '@odata.type' || key === 'id' || select.split(',').includes(key),
          ),
        );

  const attachmentEntry = (messageId: string, a: FakeAttachment, index: number) => {
    const common = {
      id: `${messageId}-att-${index}`,
      lastModifiedDateTime: '2026-11-26T08:00:00Z',
      name: a.name,
    };
    if (a.kind === 'file') {
      return {
        '@odata.type': '#microsoft.graph.fileAttachment',
        '@odata.mediaContentType': a.contentType,
        ...common,
        contentType: a.contentType,
        size: a.size ?? a.content.length,
        isInline: a.isInline ?? false,
        contentId: a.isInline ? `img${index}@kunde.example` : null,
        contentLocation: null,
        contentBytes: a.content.toString('base64'),
      };
    }
    return {
      '@odata.type':
        a.kind === 'item' ? '#microsoft.graph.itemAttachment' : '#microsoft.graph.referenceAttachment',
      ...common,
      contentType: null,
      size: a.size ?? 2048,
      isInline: false,
    };
  };

  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', base);
    calls.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      body,
      authorization: req.headers.authorization,
    });
    const token = /^\/login\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (token && req.method === 'POST') {
      state.tokenRequests += 1;
      const form = new URLSearchParams(body);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('scope') !== 'https://graph.microsoft.com/.default'
      ) {
        return json(res, 400, { error: 'invalid_request', error_description: 'AADSTS900144: bad request' });
      }
      if (refusal) return json(res, 401, { error: 'invalid_client', error_description: refusal });
      return json(res, 200, {
        token_type: 'Bearer',
        expires_in: 3599,
        ext_expires_in: 3599,
        access_token: `token-${state.tokenRequests}`,
      });
    }
    if (!req.headers.authorization?.startsWith('Bearer token-')) {
      return json(res, 401, {
        error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' },
      });
    }
    const api = url.pathname.replace(/^\/v1\.0/, '');
    let m: RegExpExecArray | null;
    if ((m = /^\/users\/([^/]+)\/mailFolders\/inbox\/messages\/delta$/.exec(api)) && req.method === 'GET') {
      const from = deltaTokens.get(url.searchParams.get('$deltatoken') ?? '');
      const seen = from?.seen ?? 0;
      const select = from ? from.select : url.searchParams.get('$select');
      const next = `d${++deltaSeq}`;
      deltaTokens.set(next, { seen: inbox.length, select });
      return json(res, 200, {
        '@odata.context': `${base}/v1.0/$metadata#Collection(message)`,
        value: inbox.slice(seen).map((msg) =>
          selected(
            {
              '@odata.type': '#microsoft.graph.message',
              id: msg.id,
              internetMessageId: msg.internetMessageId,
              subject: msg.subject,
              isRead: msg.isRead ?? false,
              hasAttachments: (msg.attachments ?? []).some((a) => a.kind !== 'file' || !a.isInline),
              from: { emailAddress: { name: msg.fromName ?? 'Kunde', address: msg.from } },
              sender: { emailAddress: { name: msg.fromName ?? 'Kunde', address: msg.from } },
              replyTo: (msg.replyTo ?? []).map((address) => ({ emailAddress: { name: '', address } })),
              ccRecipients: (msg.cc ?? []).map((address) => ({ emailAddress: { name: '', address } })),
              body: { contentType: 'text', content: msg.text },
              internetMessageHeaders: msg.headers ?? [],
            },
            select,
          ),
        ),
        '@odata.deltaLink': `${base}/v1.0/users/${m[1]}/mailFolders/inbox/messages/delta?$deltatoken=${next}`,
      });
    }
    if ((m = /^\/users\/([^/]+)\/messages\/([^/]+)\/attachments$/.exec(api)) && req.method === 'GET') {
      if (state.attachmentFailure !== null) {
        res.setHeader('retry-after', '1');
        return json(res, state.attachmentFailure, {
          error: { code: 'ServiceUnavailable', message: 'The service is temporarily unavailable.' },
        });
      }
      const messageId = decodeURIComponent(m[2]!);
      const msg = inbox.find((x) => x.id === messageId);
      if (!msg)
        return json(res, 404, {
          error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
        });
      const select = url.searchParams.get('$select');
      const skip = Number(url.searchParams.get('$skip') ?? 0);
      const all = (msg.attachments ?? []).map((a, i) => attachmentEntry(msg.id, a, i));
      const page = all.slice(skip, skip + state.attachmentPageSize);
      const nextQuery = new URLSearchParams({
        ...(select === null ? {} : { $select: select }),
        $skip: String(skip + page.length),
      });
      return json(res, 200, {
        '@odata.context': `${base}/v1.0/$metadata#users('${m[1]}')/messages('${messageId}')/attachments`,
        value: page.map((entry) => selected(entry, select)),
        ...(skip + page.length < all.length
          ? {
              '@odata.nextLink': `${base}/v1.0/users/${m[1]}/messages/${m[2]}/attachments?${nextQuery.toString()}`,
            }
          : {}),
      });
    }
    if ((m = /^\/users\/([^/]+)\/messages\/([^/]+)\/\$value$/.exec(api)) && req.method === 'GET') {
      if (state.mimeFailure !== null) {
        return json(res, state.mimeFailure, {
          error: { code: 'ServiceUnavailable', message: 'The service is temporarily unavailable.' },
        });
      }
      const msg = inbox.find((x) => x.id === decodeURIComponent(m![2]!));
      if (!msg)
        return json(res, 404, {
          error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
        });
      const mime =
        msg.mime ??
        Buffer.from(
          [
            `From: ${msg.fromName ?? 'Kunde'} <${msg.from}>`,
            `Subject: ${msg.subject}`,
            `Message-ID: ${msg.internetMessageId}`,
            ...(msg.headers ?? []).map((h) => `${h.name}: ${h.value}`),
            'Content-Type: text/plain; charset=utf-8',
            '',
            msg.text,
            '',
          ].join('\r\n'),
        );
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(mime.length) });
      return res.end(mime);
    }
    if ((m = /^\/users\/([^/]+)\/mailFolders\/inbox$/.exec(api)) && req.method === 'GET') {
      return json(res, 200, { id: 'inbox-id', unreadItemCount: inbox.filter((x) => !x.isRead).length });
    }
    if ((m = /^\/users\/([^/]+)\/messages\/([^/]+)\/createReply$/.exec(api)) && req.method === 'POST') {
      const parent = inbox.find((x) => x.id === decodeURIComponent(m![2]!));
      if (!parent)
        return json(res, 404, {
          error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
        });
      const draftId = `draft-${drafts.size + 1}`;
      const payload = JSON.parse(body || '{}') as {
        message?: {
          body?: { content?: string };
          internetMessageHeaders?: unknown;
          toRecipients?: unknown;
          ccRecipients?: unknown;
        };
      };
      drafts.set(draftId, {
        replyTo: parent.id,
        comment: payload.message?.body?.content ?? '',
        headers: payload.message?.internetMessageHeaders ?? null,
        toRecipients: payload.message?.toRecipients,
        ccRecipients: payload.message?.ccRecipients,
      });
      return json(res, 201, { id: draftId, subject: `RE: ${parent.subject}`, isDraft: true });
    }
    if ((m = /^\/users\/([^/]+)\/messages\/([^/]+)\/send$/.exec(api)) && req.method === 'POST') {
      const draft = drafts.get(decodeURIComponent(m[2]!));
      if (!draft) return json(res, 404, { error: { code: 'ErrorItemNotFound', message: 'Not found' } });
      sent.push(draft);
      drafts.delete(decodeURIComponent(m[2]!));
      return json(res, 202);
    }
    if ((m = /^\/users\/([^/]+)\/messages\/([^/]+)$/.exec(api)) && req.method === 'PATCH') {
      const msg = inbox.find((x) => x.id === decodeURIComponent(m![2]!));
      if (!msg) return json(res, 404, { error: { code: 'ErrorItemNotFound', message: 'Not found' } });
      Object.assign(msg, JSON.parse(body) as object);
      return json(res, 200, { id: msg.id, isRead: msg.isRead });
    }
    return json(res, 404, { error: { code: 'BadRequest', message: `no route ${req.method} ${api}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    loginUrl: `${base}/login`,
    apiUrl: `${base}/v1.0`,
    calls,
    deliver: (message) => inbox.push(message),
    refuseTokens: (description) => (refusal = description),
    get tokenRequests() {
      return state.tokenRequests;
    },
    get attachmentPageSize() {
      return state.attachmentPageSize;
    },
    set attachmentPageSize(size: number) {
      state.attachmentPageSize = size;
    },
    failAttachments: (status) => (state.attachmentFailure = status),
    failMime: (status) => (state.mimeFailure = status),
    sent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
