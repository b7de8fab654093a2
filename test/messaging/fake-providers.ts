/**
 * Local stateful stand-ins for the provider endpoints Parley calls, recording every request:
 * Meta's Graph API `POST /{version}/{phone-number-id}/messages` (messages and read marks) and
 * Twilio's `POST /2010-04-01/Accounts/{sid}/Messages.json`; their template endpoints (Meta's
 * `message_templates`, Twilio's Content API) are in fake-templates.ts. Each checks what the real one checks
 * first (the bearer token, basic auth, the required fields) and answers the documented error
 * shapes: a test queues the next answers (`failNext`), or a delay longer than Parley's timeout.
 *
 * Every message request is also checked against the provider's published request schema
 * (provider-schemas/: Meta's `Message`, Twilio's `CreateMessageRequest`); one that does not
 * match is answered 400 as the provider would (Meta: code 100 "Invalid parameter"; Twilio: a
 * 400 with the reason) and kept in `schemaViolations`, which the messaging tests check stay empty.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { schemaProblem } from './provider-schemas/validate.js';
import {
  metaTemplateProblem,
  metaTemplatesPage,
  twilioContent,
  twilioContentProblem,
  type TemplateState,
} from './fake-templates.js';

export interface Recorded {
  provider: 'meta' | 'twilio';
  path: string;
  auth: string | undefined;
  body: Record<string, unknown>;
  at: number;
}

type Planned = { status: number; code: number; message?: string } | { delayMs: number };

export interface FakeProviders {
  url: string;
  graphBase: string;
  requests: Recorded[];
  /** Sent messages (read marks, template reads and Content calls left out). */
  messages(provider?: 'meta' | 'twilio'): Recorded[];
  readMarks(): Recorded[];
  failNext(provider: 'meta' | 'twilio', ...plans: Planned[]): void;
  expectedToken: { meta: string; twilio: { sid: string; token: string } };
  /** The templates Meta holds and the contents Twilio holds (fake-templates.ts). */
  templates: TemplateState;
  /**
   * A file the fakes serve as media: Meta `GET /{version}/{media-id}` (its URL, type and size)
   * and the URL's bytes, both with the access token; Twilio's `MediaUrl0` with basic auth, which
   * redirects to a download without credentials, as Twilio's media store does.
   */
  addMedia(id: string, bytes: Buffer, mimeType: string): { twilioUrl: string };
  /** Media requests (not counted as messages), with the Authorization header they carried. */
  mediaRequests: { path: string; auth: string | undefined }[];
  /** Requests that did not match the provider's published schema, with the reason. */
  schemaViolations: { provider: 'meta' | 'twilio'; path: string; problem: string }[];
  reset(): void;
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const META_TYPES = new Set(['text', 'interactive', 'template', 'image', 'reaction']);

/** Why a Cloud API message body would be refused (the fields the reference marks required). */
function metaBodyProblem(body: Record<string, unknown>): string | null {
  if (body.messaging_product !== 'whatsapp') return 'messaging_product must be whatsapp';
  if (body.status === 'read') return typeof body.message_id === 'string' ? null : 'message_id required';
  if (typeof body.to !== 'string' || !/^[0-9]{7,15}$/.test(body.to)) return 'to must be digits';
  if (!META_TYPES.has(String(body.type))) return 'unknown type';
  if (body.type === 'text') {
    const text = (body.text as { body?: unknown } | undefined)?.body;
    if (typeof text !== 'string' || text.length === 0 || [...text].length > 4096) return 'text.body 1–4096';
  }
  if (body.type === 'interactive') {
    const i = body.interactive as { type: string; body?: { text?: string }; action: Record<string, unknown> };
    if ([...(i.body?.text ?? '')].length > 1024) return 'interactive body too long';
    if (i.type === 'button') {
      const buttons = i.action.buttons as { reply: { id: string; title: string } }[];
      if (buttons.length < 1 || buttons.length > 3) return 'buttons 1–3';
      if (buttons.some((b) => [...b.reply.title].length > 20 || b.reply.id.length > 256))
        return 'button too long';
    } else if (i.type === 'list') {
      const sections = i.action.sections as { rows: { title: string; description?: string }[] }[];
      const rows = sections.flatMap((s) => s.rows);
      if (rows.length > 10) return 'at most 10 rows';
      if (rows.some((r) => [...r.title].length > 24 || [...(r.description ?? '')].length > 72))
        return 'row too long';
      if ([...String(i.action.button)].length > 20) return 'button label too long';
    } else return 'interactive type';
  }
  return null;
}

export async function startFakeProviders(
  expected = { meta: '', twilio: { sid: '', token: '' } },
): Promise<FakeProviders> {
  const requests: Recorded[] = [];
  const schemaViolations: FakeProviders['schemaViolations'] = [];
  const plans: Record<'meta' | 'twilio', Planned[]> = { meta: [], twilio: [] };
  const templates: TemplateState = { meta: [], contents: [] };
  let counter = 0;
  const media = new Map<string, { bytes: Buffer; mimeType: string }>();
  const mediaRequests: FakeProviders['mediaRequests'] = [];
  let url = '';
  /** Answers a media request; false when the path is not one. */
  const serveMedia = (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = req.url ?? '';
    const meta = /^\/v\d+\.\d+\/([A-Za-z0-9_-]+)$/.exec(path);
    const download = /^\/media-download\/([A-Za-z0-9_-]+)$/.exec(path);
    const twilio = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/[^/]+\/Media\/([A-Za-z0-9_-]+)$/.exec(path);
    const store = /^\/twilio-media-store\/([A-Za-z0-9_-]+)$/.exec(path);
    if (req.method !== 'GET' || !(meta || download || twilio || store)) return false;
    mediaRequests.push({ path, auth: req.headers.authorization });
    const file = media.get((meta ?? download ?? store)?.[1] ?? twilio![2]!);
    const end = (status: number, type?: string, body?: Buffer | string) => {
      res.writeHead(status, type ? { 'content-type': type } : {});
      res.end(body);
    };
    const basic = `Basic ${Buffer.from(`${expected.twilio.sid}:${expected.twilio.token}`).toString('base64')}`;
    if ((meta || download) && req.headers.authorization !== `Bearer ${expected.meta}`)
      end(401, 'application/json', JSON.stringify({ error: { code: 190 } }));
    else if (twilio && req.headers.authorization !== basic) end(401);
    else if (!file) end(404, 'application/json', JSON.stringify({ error: { code: 100 } }));
    else if (meta) {
      const id = meta[1]!;
      end(
        200,
        'application/json',
        JSON.stringify({
          messaging_product: 'whatsapp',
          url: `${url}/media-download/${id}`,
          mime_type: file.mimeType,
          file_size: file.bytes.length,
          id,
        }),
      );
    } else if (twilio) {
      res.writeHead(307, { location: `${url}/twilio-media-store/${twilio[2]}` });
      res.end();
    } else end(200, file.mimeType, file.bytes);
    return true;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (serveMedia(req, res)) return;
      const raw = await read(req);
      const path = req.url ?? '';
      const twilio = path.startsWith('/2010-04-01/') || path.startsWith('/v1/');
      const provider = twilio ? 'twilio' : 'meta';
      const form = path.startsWith('/2010-04-01/');
      const body: Record<string, unknown> = form
        ? Object.fromEntries(new URLSearchParams(raw))
        : req.method === 'GET'
          ? {}
          : (JSON.parse(raw || '{}') as Record<string, unknown>);
      requests.push({ provider, path, auth: req.headers.authorization, body, at: Date.now() });
      const send = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const plan = body.status === 'read' ? undefined : plans[provider].shift();
      if (plan && 'delayMs' in plan) await new Promise((r) => setTimeout(r, plan.delayMs));
      if (!twilio) {
        if (req.headers.authorization !== `Bearer ${expected.meta}`)
          return send(401, {
            error: { message: 'Error validating access token', type: 'OAuthException', code: 190 },
          });
        const url = new URL(path, 'http://fake');
        if (req.method === 'GET' && /^\/v\d+\.\d+\/[0-9]+\/message_templates$/.test(url.pathname)) {
          if (plan && 'status' in plan)
            return send(plan.status, {
              error: { message: plan.message ?? `error ${plan.code}`, code: plan.code },
            });
          const page = metaTemplatesPage(new URL(path, `http://${req.headers.host}`), templates);
          return send(page.status, page.payload);
        }
        if (!/^\/v\d+\.\d+\/[0-9]+\/messages$/.test(path)) return send(404, { error: { code: 100 } });
        if (plan && 'status' in plan)
          return send(plan.status, {
            error: { message: plan.message ?? `error ${plan.code}`, code: plan.code },
          });
        const invalid = body.status === 'read' ? null : schemaProblem('metaMessage', body);
        if (invalid) {
          schemaViolations.push({ provider, path, problem: invalid });
          return send(400, {
            error: { message: `(#100) Invalid parameter: ${invalid}`, type: 'OAuthException', code: 100 },
          });
        }
        const problem = metaBodyProblem(body);
        if (problem) return send(400, { error: { message: problem, code: 100 } });
        const refused = metaTemplateProblem(body, templates);
        if (refused) return send(refused.status, refused.payload);
        if (body.status === 'read') return send(200, { success: true });
        counter += 1;
        return send(200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.FAKE${counter}` }],
        });
      }
      const basic = `Basic ${Buffer.from(`${expected.twilio.sid}:${expected.twilio.token}`).toString('base64')}`;
      if (req.headers.authorization !== basic)
        return send(401, { code: 20003, message: 'Authenticate', status: 401 });
      if (path.startsWith('/v1/')) {
        if (plan && 'status' in plan)
          return send(plan.status, {
            code: plan.code,
            message: plan.message ?? `error ${plan.code}`,
            status: plan.status,
          });
        const answer = twilioContent(req.method ?? 'GET', path, raw, templates, (problem) =>
          schemaViolations.push({ provider, path, problem }),
        );
        return send(answer.status, answer.payload);
      }
      if (!path.endsWith('/Messages.json') || !path.includes(expected.twilio.sid))
        return send(404, { code: 20404, message: 'not found', status: 404 });
      if (plan && 'status' in plan)
        return send(plan.status, {
          code: plan.code,
          message: plan.message ?? `error ${plan.code}`,
          status: plan.status,
        });
      const invalid = schemaProblem('twilioMessage', body);
      if (invalid) {
        schemaViolations.push({ provider, path, problem: invalid });
        return send(400, { code: 20001, message: `Invalid request: ${invalid}`, status: 400 });
      }
      const contentRefused = twilioContentProblem(body, templates);
      if (contentRefused) return send(contentRefused.status, contentRefused.payload);
      const text = typeof body.Body === 'string' ? body.Body : body.ContentSid ? '' : null;
      if (!body.To || !body.From || text === null || [...text].length > 1600)
        return send(400, { code: 21602, message: 'Message body is required or too long', status: 400 });
      counter += 1;
      return send(201, {
        sid: `SM${String(counter).padStart(32, '0')}`,
        status: 'queued',
        to: body.To,
        from: body.From,
        body: body.Body,
        account_sid: expected.twilio.sid,
      });
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    graphBase: `${url}/v23.0`,
    requests,
    schemaViolations,
    templates,
    expectedToken: expected,
    messages: (provider) =>
      requests.filter(
        (r) =>
          (provider ? r.provider === provider : true) &&
          r.body.status !== 'read' &&
          /\/(messages|Messages\.json)$/.test(r.path),
      ),
    readMarks: () => requests.filter((r) => r.body.status === 'read'),
    mediaRequests,
    addMedia(id, bytes, mimeType) {
      media.set(id, { bytes, mimeType });
      return {
        twilioUrl: `${url}/2010-04-01/Accounts/${expected.twilio.sid}/Messages/MM${id}/Media/${id}`,
      };
    },
    failNext(provider, ...p) {
      plans[provider].push(...p);
    },
    reset() {
      requests.length = 0;
      mediaRequests.length = 0;
      schemaViolations.length = 0;
      plans.meta.length = 0;
      plans.twilio.length = 0;
      templates.meta.length = 0;
      templates.contents.length = 0;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
