import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Queryable } from '../../src/db/database.js';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (
  request: ReceivedRequest,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | undefined;

/** A webhook receiver on 127.0.0.1 that records every request and answers as told (200 by default). */
export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  let responder: Responder = () => undefined;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body };
      received.push(request);
      const answer = responder(request) ?? { status: 200 };
      setTimeout(() => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    respond(next) {
      responder = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A conversation row as the chat would have stored it. */
export async function insertConversation(
  db: Queryable,
  tenantId: string,
  botId: string,
  fields: { senderId?: string | null; status?: string; lastMessageAt?: Date | null; createdAt?: Date } = {},
): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO conversations (tenant_id, bot_id, sender_id, status, last_message_at, message_count, created_at)
     VALUES ($1, $2, $3, $4, $5, 2, coalesce($6, now())) RETURNING id`,
    [
      tenantId,
      botId,
      fields.senderId ?? null,
      fields.status ?? 'active',
      fields.lastMessageAt ?? null,
      fields.createdAt ?? null,
    ],
  );
  return rows[0]!.id;
}

/** The outbox: events of a tenant with their deliveries. */
export async function deliveriesOf(db: Queryable, tenantId: string) {
  return db.query<{
    id: string;
    type: string;
    data: Record<string, unknown>;
    status: string;
    attempts: number;
  }>(
    `SELECT d.id, e.type, e.data, d.status, d.attempts FROM webhook_delivery_log d
     JOIN webhook_events e ON e.id = d.event_id WHERE d.tenant_id = $1 ORDER BY d.created_at, e.type`,
    [tenantId],
  );
}

/** A signing secret in its former storage form under WEBHOOK_SECRETS_KEY (`enc1:<iv>:<tag>:<ciphertext>`). */
export function legacySealedSecret(secretsKey: string, plain: string): string {
  const key = createHash('sha256').update(secretsKey).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return 'enc1:' + [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64')).join(':');
}
