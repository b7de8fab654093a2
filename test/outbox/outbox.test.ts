import { expect, it } from 'vitest';
import { claimDue, enqueue, type OutboxMessage } from '../../src/modules/outbox/repository.js';
import { OutboxWorker, type OutboxSender, type SendResult } from '../../src/modules/outbox/worker.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

/** A sender of kind `kind` that records every send by send-once key and answers as told. */
function recordingSender(
  kind: string,
  answer: (message: OutboxMessage) => SendResult = () => ({ verdict: { kind: 'sent' }, durationMs: 1 }),
  options: { maxAttempts?: number; delayMs?: number } = {},
) {
  const sent: string[] = [];
  const sender: OutboxSender = {
    kind,
    maxAttempts: options.maxAttempts ?? 3,
    attemptTimeoutMs: 1000,
    async send(message) {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      sent.push(message.idempotency_key);
      return answer(message);
    },
  };
  return { sender, sent };
}

describeApp('outbox', (get) => {
  let clock = Date.now();
  const worker = (sender: OutboxSender, batchSize = 20) =>
    new OutboxWorker({
      db: get().db,
      senders: [sender],
      now: () => new Date(clock),
      random: () => 0.5,
      batchSize,
    });
  const message = async (id: string) =>
    (await get().db.query<OutboxMessage>('SELECT * FROM outbox_messages WHERE id = $1', [id]))[0]!;
  let kinds = 0;
  /** A kind of its own per test, so workers of one test never see another test's messages. */
  const freshKind = () => `test-${(kinds += 1)}`;

  it('queues in the caller transaction: a rollback queues nothing, a key is queued once', async () => {
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    await expect(
      get().db.transaction(async (tx) => {
        await enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:rolled-back`, payload: { n: 1 } }]);
        throw new Error('the exchange failed');
      }),
    ).rejects.toThrow('the exchange failed');
    const first = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:once`, payload: { n: 2 } }]),
    );
    const again = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:once`, payload: { n: 3 } }]),
    );
    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
    const rows = await get().db.query<{ idempotency_key: string; payload: unknown }>(
      'SELECT idempotency_key, payload FROM outbox_messages WHERE kind = $1',
      [kind],
    );
    expect(rows).toEqual([{ idempotency_key: `${kind}:once`, payload: { n: 2 } }]);
  });

  it('sends every message exactly once when two workers run at the same time', async () => {
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    const keys = Array.from({ length: 24 }, (_, i) => `${kind}:${i}`);
    await get().db.transaction((tx) =>
      enqueue(
        tx,
        tenant.id,
        keys.map((key) => ({ kind, idempotencyKey: key, payload: {} })),
      ),
    );
    clock = Date.now() + 1000;
    const { sender, sent } = recordingSender(kind, undefined, { delayMs: 15 });
    const [a, b] = [worker(sender, 5), worker(sender, 5)];
    for (let round = 0; round < 10; round += 1) {
      const [ra, rb] = await Promise.all([a.sendDue(), b.sendDue()]);
      if (ra.claimed + rb.claimed === 0) break;
    }
    expect(sent.sort()).toEqual([...keys].sort());
    const states = await get().db.query<{ status: string; attempts: number }>(
      'SELECT DISTINCT status, attempts FROM outbox_messages WHERE kind = $1',
      [kind],
    );
    expect(states).toEqual([{ status: 'sent', attempts: 1 }]);
  });

  it('takes over a claim whose worker stopped between claim and send, once its lease ran out', async () => {
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    const [id] = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:crash`, payload: {} }]),
    );
    clock = Date.now() + 1000;
    // An instance claims the message and dies before sending it.
    const crashed = await claimDue(get().db, {
      kinds: [kind],
      now: new Date(clock),
      leaseUntil: new Date(clock + 60_000),
      limit: 10,
    });
    expect(crashed.map((m) => m.id)).toEqual([id]);
    const { sender, sent } = recordingSender(kind);
    // While the lease lasts, nobody else takes it.
    expect((await worker(sender).sendDue()).claimed).toBe(0);
    clock += 61_000;
    expect(await worker(sender).sendDue()).toMatchObject({ claimed: 1, sent: 1 });
    expect(sent).toEqual([`${kind}:crash`]);
    expect(await message(id!)).toMatchObject({ status: 'sent', attempts: 2, locked_until: null });
    // Nothing is due any more: it is never sent a second time.
    clock += 3600_000;
    expect((await worker(sender).sendDue()).claimed).toBe(0);
  });

  it('honours Retry-After, backs off otherwise, and dead-letters after the last attempt', async () => {
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    const [id] = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:flaky`, payload: { ref: 'x' } }]),
    );
    const answers: SendResult[] = [
      { verdict: { kind: 'failed', retryAfter: '120' }, statusCode: 429, durationMs: 3 },
      { verdict: { kind: 'failed' }, statusCode: 503, error: 'HTTP 503', durationMs: 3 },
      { verdict: { kind: 'failed' }, error: 'connection refused', durationMs: 3 },
    ];
    const { sender, sent } = recordingSender(kind, () => answers.shift()!, { maxAttempts: 3 });
    clock = Date.now() + 1000;
    expect(await worker(sender).sendDue()).toMatchObject({ claimed: 1, retried: 1 });
    let row = await message(id!);
    expect(row).toMatchObject({ status: 'retry', attempts: 1, last_status_code: 429 });
    expect(row.next_attempt_at.getTime() - clock).toBe(120_000);
    clock += 119_000;
    expect((await worker(sender).sendDue()).claimed).toBe(0);
    clock += 1000;
    await worker(sender).sendDue();
    row = await message(id!);
    // The computed backoff of the second attempt (no Retry-After): 2 minutes at the jitter's middle.
    expect(row).toMatchObject({ status: 'retry', attempts: 2, last_error: 'HTTP 503' });
    expect(row.next_attempt_at.getTime() - clock).toBe(120_000);
    clock += 120_000;
    expect(await worker(sender).sendDue()).toMatchObject({ dead: 1 });
    row = await message(id!);
    expect(row).toMatchObject({ status: 'dead', attempts: 3, last_error: 'connection refused' });
    expect(row.dead_at).toBeInstanceOf(Date);
    expect(sent).toHaveLength(3);
    clock += 24 * 3600_000;
    expect((await worker(sender).sendDue()).claimed).toBe(0);
    const attempts = await get().db.query<{ attempt_number: number }>(
      'SELECT attempt_number FROM outbox_attempts WHERE message_id = $1 ORDER BY attempt_number',
      [id],
    );
    expect(attempts.map((a) => a.attempt_number)).toEqual([1, 2, 3]);
  });

  it('a permanent refusal is dead at once; a held message waits without using an attempt', async () => {
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    const [gone, held] = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [
        { kind, idempotencyKey: `${kind}:gone`, payload: {} },
        { kind, idempotencyKey: `${kind}:held`, payload: {} },
      ]),
    );
    const { sender } = recordingSender(kind, (m) =>
      m.id === gone
        ? { verdict: { kind: 'permanent', reason: 'receiver gone' }, statusCode: 410, durationMs: 1 }
        : { verdict: { kind: 'held', delayMs: 600_000 }, durationMs: 0 },
    );
    clock = Date.now() + 1000;
    await worker(sender).sendDue();
    expect(await message(gone!)).toMatchObject({ status: 'dead', attempts: 1, last_error: 'receiver gone' });
    const row = await message(held!);
    expect(row).toMatchObject({ status: 'pending', attempts: 0 });
    expect(row.next_attempt_at.getTime() - clock).toBe(600_000);
  });

  it('lists dead letters and sends one again (permissions, other tenants, only dead ones)', async () => {
    const { app } = get();
    const tenant = await buildTenant(get().ctx);
    const kind = freshKind();
    const [id] = await get().db.transaction((tx) =>
      enqueue(tx, tenant.id, [{ kind, idempotencyKey: `${kind}:dead`, payload: { delivery_id: 'd-1' } }]),
    );
    let fail = true;
    const { sender, sent } = recordingSender(
      kind,
      () =>
        fail
          ? { verdict: { kind: 'failed' }, statusCode: 500, error: 'HTTP 500', durationMs: 1 }
          : { verdict: { kind: 'sent' }, statusCode: 200, durationMs: 1 },
      { maxAttempts: 1 },
    );
    clock = Date.now() + 1000;
    await worker(sender).sendDue();

    const list = await app.inject({
      method: 'GET',
      url: `/api/outbox/dead?kind=${kind}`,
      headers: tenant.owner.headers,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id,
        kind,
        status: 'dead',
        attempts: 1,
        reason: 'HTTP 500',
        payload: { delivery_id: 'd-1' },
      }),
    ]);
    expect(list.json().next_cursor).toBeNull();

    const other = await buildTenant(get().ctx);
    const foreign = await app.inject({
      method: 'GET',
      url: '/api/outbox/dead',
      headers: other.owner.headers,
    });
    expect(foreign.json().data).toEqual([]);
    const foreignResend = await app.inject({
      method: 'POST',
      url: `/api/outbox/${id}/resend`,
      headers: other.owner.headers,
    });
    expect(foreignResend.statusCode).toBe(404);
    const editor = await tenant.user('editor');
    expect(
      (await app.inject({ method: 'GET', url: '/api/outbox/dead', headers: editor.headers })).statusCode,
    ).toBe(403);
    expect(
      (await app.inject({ method: 'POST', url: `/api/outbox/${id}/resend`, headers: editor.headers }))
        .statusCode,
    ).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/outbox/dead' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: `/api/outbox/${id}/resend` })).statusCode).toBe(401);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/api/outbox/not-a-uuid/resend',
          headers: tenant.owner.headers,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await app.inject({ method: 'GET', url: '/api/outbox/dead?cursor=zzz', headers: tenant.owner.headers }))
        .statusCode,
    ).toBe(400);
    expect(await message(id!)).toMatchObject({ status: 'dead' });

    const resend = await app.inject({
      method: 'POST',
      url: `/api/outbox/${id}/resend`,
      headers: tenant.owner.headers,
    });
    expect(resend.statusCode).toBe(202);
    expect(resend.json().message).toMatchObject({ id, status: 'retry', dead_at: null });
    const twice = await app.inject({
      method: 'POST',
      url: `/api/outbox/${id}/resend`,
      headers: tenant.owner.headers,
    });
    expect(twice.statusCode).toBe(409);

    // A new round of attempts under the same send-once key.
    fail = false;
    expect(await worker(sender).sendDue()).toMatchObject({ sent: 1 });
    expect(sent).toEqual([`${kind}:dead`, `${kind}:dead`]);
    expect(await message(id!)).toMatchObject({ status: 'sent', attempts: 2, round_start: 1 });
    const after = await app.inject({
      method: 'GET',
      url: `/api/outbox/dead?kind=${kind}`,
      headers: tenant.owner.headers,
    });
    expect(after.json().data).toEqual([]);
  });
});
