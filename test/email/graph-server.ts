import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphCall {
  method: string;
  path: string;
  body: string;
  authorization: string | undefined;
}

export interface FakeMessage {
  id: string;
  internetMessageId: string;
  subject: string;
  from: string;
  text: string;
  headers?: Array<{ name: string; value: string }>;
  isRead?: boolean;
}

/**
 * A local stand-in for the Microsoft identity platform's token endpoint and the Graph
 * endpoints the connector uses, with Microsoft's published request and response shapes:
 * `POST /{tenant}/oauth2/v2.0/token` (client credentials), the inbox's messages delta query
 * (`@odata.nextLink` / `@odata.deltaLink`), `createReply`, `send`, `PATCH` of a message, and
 * the inbox folder (connection check).
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
  sent: Array<{ replyTo: string; comment: string; headers: unknown }>;
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
  const drafts = new Map<string, { replyTo: string; comment: string; headers: unknown }>();
  const sent: FakeGraph['sent'] = [];
  let refusal: string | null = null;
  const state = { tokenRequests: 0 };
  let base = '';
  let deltaSeq = 0;
  // delta token → how many inbox messages it has seen
  const deltaTokens = new Map<string, number>();

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
      const seen = deltaTokens.get(url.searchParams.get('$deltatoken') ?? '') ?? 0;
      const next = `d${++deltaSeq}`;
      deltaTokens.set(next, inbox.length);
      return json(res, 200, {
        '@odata.context': `${base}/v1.0/$metadata#Collection(message)`,
        value: inbox.slice(seen).map((msg) => ({
          '@odata.type': '#microsoft.graph.message',
          id: msg.id,
          internetMessageId: msg.internetMessageId,
          subject: msg.subject,
          isRead: msg.isRead ?? false,
          from: { emailAddress: { name: 'Kunde', address: msg.from } },
          sender: { emailAddress: { name: 'Kunde', address: msg.from } },
          body: { contentType: 'text', content: msg.text },
          internetMessageHeaders: msg.headers ?? [],
        })),
        '@odata.deltaLink': `${base}/v1.0/users/${m[1]}/mailFolders/inbox/messages/delta?$deltatoken=${next}`,
      });
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
        message?: { body?: { content?: string }; internetMessageHeaders?: unknown };
      };
      drafts.set(draftId, {
        replyTo: parent.id,
        comment: payload.message?.body?.content ?? '',
        headers: payload.message?.internetMessageHeaders ?? null,
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
    sent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
