/**
 * Postmark's inbound webhook: Postmark POSTs each arrived mail as JSON to the URL set on its
 * inbound stream, with the HTTP basic-auth credentials written into that URL (Postmark's
 * documented way of securing it). Each mailbox has its own user and password; they are
 * compared in constant time. The credentials are checked in the onRequest hook, before any of
 * the body is read; a client that failed too often gets 429 (`shared/webhook-auth.ts`), and the
 * body is read only after that, up to Postmark's cap. Postmark retries a delivery that is not answered with 200, and
 * a retried mail is recognised by its Message-ID, so it is answered once.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../shared/context.js';
import { AppError, unauthorized } from '../../../http/errors.js';
import { errorResponses } from '../../../http/schemas.js';
import { isUuid } from '../../../shared/ids.js';
import { SecretDecryptError } from '../../../shared/secrets.js';
import { WEBHOOK_BODY_LIMITS, WebhookAuthThrottle } from '../../../shared/webhook-auth.js';
import { findMailboxById, recordSyncSuccess, type MailboxRow } from '../../mailboxes/repository.js';
import { openSecret, secretStoreFor } from '../../mailboxes/secret-store.js';
import { headersFromPairs } from '../../email/index.js';
import addressparser from 'nodemailer/lib/addressparser';
import { rebuildMime } from './mime.js';
import type { InboundMail } from './inbound.js';
import { isPermanentFailure, receiveMail } from './inbound.js';

/** Postmark's inbound JSON, the fields used (https://postmarkapp.com/developer/webhooks/inbound-webhook). */
const PostmarkInbound = Type.Object(
  {
    From: Type.Optional(Type.String()),
    FromFull: Type.Optional(
      Type.Object(
        { Email: Type.Optional(Type.String()), Name: Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
    ),
    ReplyTo: Type.Optional(Type.String()),
    To: Type.Optional(Type.String()),
    ToFull: Type.Optional(
      Type.Array(
        Type.Object(
          { Email: Type.Optional(Type.String()), Name: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
      ),
    ),
    Date: Type.Optional(Type.String()),
    Cc: Type.Optional(Type.String()),
    CcFull: Type.Optional(
      Type.Array(
        Type.Object(
          { Email: Type.Optional(Type.String()), Name: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
      ),
    ),
    RawEmail: Type.Optional(Type.String({ description: 'The original mail, when the stream includes it' })),
    Subject: Type.Optional(Type.String()),
    MessageID: Type.Optional(Type.String()),
    TextBody: Type.Optional(Type.String()),
    HtmlBody: Type.Optional(Type.String()),
    Headers: Type.Optional(Type.Array(Type.Object({ Name: Type.String(), Value: Type.String() }))),
    Attachments: Type.Optional(
      Type.Array(
        Type.Object(
          {
            Name: Type.Optional(Type.String()),
            Content: Type.Optional(Type.String({ description: 'Base64' })),
            ContentType: Type.Optional(Type.String()),
            ContentLength: Type.Optional(Type.Integer()),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true },
);
type PostmarkInbound = {
  From?: string;
  FromFull?: { Email?: string; Name?: string };
  ReplyTo?: string;
  To?: string;
  ToFull?: Array<{ Email?: string; Name?: string }>;
  Date?: string;
  Cc?: string;
  CcFull?: Array<{ Email?: string; Name?: string }>;
  RawEmail?: string;
  Subject?: string;
  MessageID?: string;
  TextBody?: string;
  HtmlBody?: string;
  Headers?: Array<{ Name: string; Value: string }>;
  Attachments?: Array<{ Name?: string; Content?: string; ContentType?: string; ContentLength?: number }>;
};

/** Equal in constant time (over hashes, so the lengths leak nothing either). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function authorized(
  ctx: AppContext,
  mailbox: MailboxRow | undefined,
  header: string | undefined,
): boolean {
  const given = basicCredentials(header);
  // The comparison runs even without a mailbox, so a wrong id costs the same as a wrong password.
  const user = mailbox?.settings.inbound_username ?? '';
  const stored = mailbox?.secrets.inbound_password;
  let password = '';
  let opened = false;
  try {
    password = mailbox && stored ? openSecret(secretStoreFor(ctx.config), mailbox, 'inbound_password') : '';
    opened = true;
  } catch (error) {
    // A value that does not open here (moved from another row, tampered with) authenticates nothing.
    if (!(error instanceof SecretDecryptError)) throw error;
  }
  const userOk = sameSecret(given?.user ?? '', user);
  const passwordOk = sameSecret(given?.password ?? '', password);
  return Boolean(mailbox && mailbox.is_active && given && stored && opened && userOk && passwordOk);
}

/**
 * Postmark's JSON as an arrived mail. The raw form kept for download is Postmark's `RawEmail`
 * when the inbound stream includes it ("Include raw email content in JSON payload"), the
 * original bytes; otherwise a MIME rebuilt from the JSON (mime.ts), marked as such.
 */
export async function postmarkMail(body: PostmarkInbound): Promise<InboundMail> {
  const mail = postmarkFields(body);
  if (body.RawEmail) return { ...mail, raw: Buffer.from(body.RawEmail, 'utf8') };
  const people = (list: Array<{ Email?: string; Name?: string }> | undefined, plain: string | undefined) =>
    list
      ? list.filter((p) => p.Email).map((p) => ({ name: p.Name ?? '', address: p.Email! }))
      : plain
        ? addressparser(plain, { flatten: true }).map((a) => ({ name: a.name, address: a.address }))
        : [];
  const raw = await rebuildMime({
    source: 'postmark-json',
    from: body.FromFull?.Email ? people([body.FromFull], undefined) : people(undefined, body.From),
    to: people(body.ToFull, body.To),
    cc: people(body.CcFull, body.Cc),
    replyTo: people(undefined, body.ReplyTo),
    subject: body.Subject ?? null,
    date: body.Date ?? null,
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    headers: (body.Headers ?? []).map((h) => ({ name: h.Name, value: h.Value })),
    text: body.TextBody ?? null,
    html: body.HtmlBody ?? null,
    attachments: (mail.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
  }).catch(() => undefined);
  return raw ? { ...mail, raw } : mail;
}

function postmarkFields(body: PostmarkInbound): InboundMail {
  const headers = headersFromPairs((body.Headers ?? []).map((h) => ({ name: h.Name, value: h.Value })));
  const ids = (value: string | undefined) => value?.match(/<[^<>\s]+>/g) ?? [];
  const html = body.HtmlBody ?? null;
  return {
    messageId:
      ids(headers['message-id']?.[0])[0] ?? `<${body.MessageID ?? 'unknown'}@inbound.postmarkapp.com>`,
    from: (body.FromFull?.Email ?? body.From ?? '').toLowerCase() || null,
    subject: body.Subject ?? null,
    inReplyTo: ids(headers['in-reply-to']?.[0])[0] ?? null,
    references: ids(headers['references']?.join(' ')),
    text: body.TextBody ?? (html ?? '').replace(/<[^>]+>/g, ' '),
    html,
    headers,
    contentType: headers['content-type']?.[0] ?? 'text/plain',
    addresses: {
      // Every form Postmark gives counts: a list hidden in any of them refuses the mail.
      from: [
        ...(body.FromFull?.Email !== undefined
          ? [{ name: body.FromFull.Name ?? '', address: body.FromFull.Email }]
          : []),
        ...(body.From !== undefined ? [body.From] : []),
      ],
      replyTo: body.ReplyTo ? [body.ReplyTo] : [],
      cc: body.CcFull
        ? body.CcFull.map((c) => ({ name: c.Name ?? '', address: c.Email ?? '' }))
        : body.Cc
          ? [body.Cc]
          : [],
    },
    attachments: (body.Attachments ?? []).map((a) => {
      const content = Buffer.from(a.Content ?? '', 'base64');
      return {
        filename: a.Name ?? null,
        contentType: (a.ContentType ?? 'application/octet-stream').toLowerCase(),
        size: content.length,
        content,
      };
    }),
  };
}

export const postmarkInboundRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const throttle = new WebhookAuthThrottle(ctx.coordination, 'postmark');
  /** The mailbox a request authenticated for, set by the onRequest hook. */
  const authenticated = new WeakMap<FastifyRequest, MailboxRow>();

  app.post(
    '/v1/email/inbound/postmark/:mailboxId',
    {
      bodyLimit: WEBHOOK_BODY_LIMITS.postmark,
      // Runs before the body is read: a wrong password costs no parsing, and repeated ones 429.
      onRequest: async (request) => {
        const id = (request.params as { mailboxId: string }).mailboxId;
        const connection = isUuid(id) ? id : 'unknown';
        await throttle.check(connection, request.ip);
        const found = isUuid(id) ? await findMailboxById(ctx.db, id) : undefined;
        const mailbox = found?.kind === 'postmark' ? found : undefined;
        if (!authorized(ctx, mailbox, request.headers.authorization)) {
          await throttle.failed(connection, request.ip);
          throw unauthorized('Inbound webhook credentials missing or wrong');
        }
        await throttle.succeeded(connection, request.ip);
        authenticated.set(request, mailbox!);
      },
      schema: {
        tags: ['e-mail'],
        operationId: 'receivePostmarkInbound',
        security: [{ inboundBasic: [] }],
        summary:
          "Postmark's inbound webhook for a mailbox of kind postmark (HTTP basic auth with the mailbox's inbound credentials)",
        params: Type.Object({ mailboxId: Type.String() }),
        body: PostmarkInbound,
        response: {
          200: Type.Object({
            status: Type.String({ description: 'answered, skipped, failed or duplicate' }),
          }),
          ...errorResponses(400, 401, 413, 429, 503),
        },
      },
    },
    async (request) => {
      const mailbox = authenticated.get(request);
      if (!mailbox) throw unauthorized('Inbound webhook credentials missing or wrong');
      try {
        const outcome = await receiveMail(ctx, mailbox, await postmarkMail(request.body as PostmarkInbound));
        await recordSyncSuccess(ctx.db, mailbox.id);
        return { status: outcome.status };
      } catch (error) {
        // A mail that fails the same way every time is answered 200, so Postmark stops delivering it.
        if (isPermanentFailure(error)) {
          request.log.warn(
            { mailbox: mailbox!.id, err: (error as Error).message },
            'inbound mail failed for good',
          );
          return { status: 'failed' };
        }
        // Postmark delivers again later: the model or the database is away for now.
        if (error instanceof AppError && error.statusCode < 500 && error.statusCode !== 409) throw error;
        throw new AppError(
          503,
          'service_unavailable',
          'The mail could not be answered now; deliver it again later',
        );
      }
    },
  );
};
