import { connect } from 'node:net';
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryCoordination } from '../../src/coordination/index.js';
import { WebhookAuthThrottle } from '../../src/shared/webhook-auth.js';
import { AppError } from '../../src/http/errors.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { addMailbox, POSTMARK_MAILBOX } from '../email/mailbox-setup.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const RIGHT = basic('pm', 'inbound-password-123');
const WRONG = basic('pm', 'wrong-password-123');
/** A client address of its own per test run (the Redis counters outlive a run). */
const address = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 255)}`;

describe('webhook authentication throttle', () => {
  it('locks a (connection, address) pair after its failures, other addresses go on', async () => {
    const throttle = new WebhookAuthThrottle(memoryCoordination(), 'postmark', {
      maxFailures: 3,
      maxAddressFailures: 5,
      windowSeconds: 60,
    });
    for (let i = 0; i < 3; i++) {
      await throttle.check('m1', '1.1.1.1');
      await throttle.failed('m1', '1.1.1.1');
    }
    const locked = await throttle.check('m1', '1.1.1.1').catch((error: unknown) => error);
    expect(locked).toBeInstanceOf(AppError);
    expect((locked as AppError).statusCode).toBe(429);
    expect((locked as AppError).headers).toEqual({ 'retry-after': '60' });
    await expect(throttle.check('m1', '2.2.2.2')).resolves.toBeUndefined();
    // Five failures of one address over several connections lock that address everywhere.
    await throttle.failed('m2', '1.1.1.1');
    await throttle.failed('m3', '1.1.1.1');
    await expect(throttle.check('m4', '1.1.1.1')).rejects.toBeInstanceOf(AppError);
  });
});

for (const redis of [false, true]) {
  describeApp(
    `Postmark inbound: credentials before the body, throttled failures (${redis ? 'Redis' : 'memory'} counters)`,
    (get) => {
      async function postmarkMailbox() {
        const tenant = await buildTenant(get().ctx);
        const bot = await tenant.bot();
        return addMailbox(get().app, tenant, bot.id, POSTMARK_MAILBOX);
      }

      it('answers wrong credentials with 401 before the body has arrived', async () => {
        const id = await postmarkMailbox();
        const app = get().app;
        const port = await app.listen({ port: 0, host: '127.0.0.1' }).then((at) => Number(new URL(at).port));
        // Announces 11 MB, sends 1 KB and waits: the answer must come without the rest.
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          let text = '';
          const timer = setTimeout(() => {
            socket.destroy();
            resolve(text);
          }, 3000);
          socket.on('error', reject);
          socket.on('data', (chunk) => {
            text += chunk.toString('utf8');
            if (text.includes('\r\n\r\n')) {
              clearTimeout(timer);
              socket.destroy();
              resolve(text);
            }
          });
          socket.write(
            `POST /v1/email/inbound/postmark/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
              `Authorization: ${WRONG}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${11 * 1024 * 1024}\r\n\r\n{"TextBody":"${'x'.repeat(1024)}`,
          );
        });
        expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      });

      it('answers 429 with Retry-After after repeated wrong passwords, per address', async () => {
        const id = await postmarkMailbox();
        const url = `/v1/email/inbound/postmark/${id}`;
        const guesser = address();
        const statuses: number[] = [];
        let retryAfter: string | undefined;
        for (let i = 0; i < 12; i++) {
          const res = await get().app.inject({
            method: 'POST',
            url,
            remoteAddress: guesser,
            headers: { authorization: WRONG },
            payload: {},
          });
          statuses.push(res.statusCode);
          if (res.statusCode === 429) retryAfter = res.headers['retry-after'] as string;
        }
        expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
        expect(statuses.slice(10)).toEqual([429, 429]);
        expect(Number(retryAfter)).toBeGreaterThan(0);
        // The locked address is locked for the right password too; Postmark's own address is not.
        const locked = await get().app.inject({
          method: 'POST',
          url,
          remoteAddress: guesser,
          headers: { authorization: RIGHT },
          payload: {},
        });
        expect(locked.statusCode).toBe(429);
        const delivery = await get().app.inject({
          method: 'POST',
          url,
          remoteAddress: address(),
          headers: { authorization: RIGHT },
          payload: {
            From: 'kunde@kunde.example',
            Subject: 'Abwesend',
            TextBody: 'Ich bin nicht da.',
            Headers: [
              { Name: 'Message-ID', Value: `<ooo-${id}@kunde.example>` },
              { Name: 'Auto-Submitted', Value: 'auto-replied' },
            ],
          },
        });
        expect(delivery.statusCode, delivery.body).toBe(200);
      });
    },
    { redis },
  );
}
