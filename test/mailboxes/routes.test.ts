import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { IMAP_MAILBOX } from '../email/mailbox-setup.js';

describeApp('mailboxes: /api/bots/:id/mailboxes', (get) => {
  const url = (botId: string, rest = '') => `/api/bots/${botId}/mailboxes${rest}`;

  it('connects a mailbox, stores its secret encrypted and never shows it', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const created = await get().app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: { ...IMAP_MAILBOX, secret_expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString() },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      kind: 'imap',
      address: 'support@example.test',
      secrets_set: ['password'],
      inbound_url: null,
      health: { last_sync_at: null, last_error: null, warning: 'secret_expiring', secret_expires_in_days: 4 },
    });
    expect(created.body).not.toContain('imap-password-not-shown');
    const [row] = await get().db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM mailboxes WHERE id = $1',
      [body.id],
    );
    expect(row!.secrets.password).toMatch(/^s1:/);
    expect(JSON.stringify(row)).not.toContain('imap-password-not-shown');

    const list = await get().app.inject({ method: 'GET', url: url(bot.id), headers: tenant.owner.headers });
    expect(list.json().data.map((m: { id: string }) => m.id)).toEqual([body.id]);
    const one = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${body.id}`),
      headers: tenant.owner.headers,
    });
    expect(one.json().id).toBe(body.id);
    expect(one.body).not.toContain('imap-password-not-shown');
  });

  it('changes fields, keeps an absent secret and replaces a given one', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const { id } = (
      await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload: IMAP_MAILBOX,
      })
    ).json();
    const before = await get().db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM mailboxes WHERE id = $1',
      [id],
    );
    const renamed = await get().app.inject({
      method: 'PATCH',
      url: url(bot.id, `/${id}`),
      headers: tenant.owner.headers,
      payload: { name: 'Sales', settings: { imap_port: 993 } },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'Sales',
      settings: { imap_port: 993, imap_host: '127.0.0.1' },
    });
    const kept = await get().db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM mailboxes WHERE id = $1',
      [id],
    );
    expect(kept[0]!.secrets.password).toBe(before[0]!.secrets.password);
    await get().app.inject({
      method: 'PATCH',
      url: url(bot.id, `/${id}`),
      headers: tenant.owner.headers,
      payload: { secrets: { password: 'new-one' } },
    });
    const replaced = await get().db.query<{ secrets: Record<string, string> }>(
      'SELECT secrets FROM mailboxes WHERE id = $1',
      [id],
    );
    expect(replaced[0]!.secrets.password).not.toBe(before[0]!.secrets.password);
  });

  it('refuses incomplete or malformed mailboxes with 400 and stores nothing', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    for (const payload of [
      { ...IMAP_MAILBOX, secrets: {} },
      { ...IMAP_MAILBOX, settings: { smtp_host: 'x', username: 'u' } },
      { ...IMAP_MAILBOX, kind: 'pop3' },
      { ...IMAP_MAILBOX, address: 'not-an-address' },
      { ...IMAP_MAILBOX, secrets: { password: 'x', token: 'y' } },
      {
        kind: 'graph',
        name: 'M365',
        address: 'a@b.test',
        settings: { tenant_id: 't' },
        secrets: { client_secret: 's' },
      },
      {
        kind: 'postmark',
        name: 'P',
        address: 'a@b.test',
        settings: { inbound_username: 'u' },
        secrets: { inbound_password: 'short' },
      },
    ]) {
      const res = await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('validation_error');
    }
    const missing = await get().app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: { ...IMAP_MAILBOX, secrets: {} },
    });
    expect(missing.json()).toMatchObject({ code: 'field_required', details: { field: 'secrets.password' } });
    const rows = await get().db.query('SELECT 1 FROM mailboxes WHERE tenant_id = $1', [tenant.id]);
    expect(rows).toHaveLength(0);
  });

  it('shows the postmark inbound URL and deletes a mailbox', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const created = await get().app.inject({
      method: 'POST',
      url: url(bot.id),
      headers: tenant.owner.headers,
      payload: {
        kind: 'postmark',
        name: 'Inbound',
        address: 'hello@example.test',
        settings: { inbound_username: 'postmark', smtp_host: 'smtp.example.test', username: 'u' },
        secrets: { inbound_password: 'a-long-inbound-password', password: 'smtp' },
      },
    });
    expect(created.statusCode).toBe(201);
    const { id, inbound_url: inboundUrl } = created.json();
    expect(inboundUrl).toMatch(new RegExp(`/v1/email/inbound/postmark/${id}$`));
    const removed = await get().app.inject({
      method: 'DELETE',
      url: url(bot.id, `/${id}`),
      headers: tenant.owner.headers,
    });
    expect(removed.statusCode).toBe(204);
    const again = await get().app.inject({
      method: 'DELETE',
      url: url(bot.id, `/${id}`),
      headers: tenant.owner.headers,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().details).toMatchObject({ resource: 'mailbox' });
  });

  it('reports a failed connection check in words and records it as the last error', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const { id } = (
      await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload: IMAP_MAILBOX,
      })
    ).json();
    const res = await get().app.inject({
      method: 'POST',
      url: url(bot.id, `/${id}/test`),
      headers: tenant.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, checked: [], error: expect.any(String) });
    const shown = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${id}`),
      headers: tenant.owner.headers,
    });
    expect(shown.json().health.last_error).toBe(res.json().error);
  });

  it('401 without a session, 403 for a viewer writing, 404 for another tenant', async () => {
    const tenant = await buildTenant(get().ctx);
    const bot = await tenant.bot();
    const { id } = (
      await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload: IMAP_MAILBOX,
      })
    ).json();
    const anonymous = await get().app.inject({ method: 'GET', url: url(bot.id) });
    expect(anonymous.statusCode).toBe(401);
    const viewer = await tenant.user('viewer');
    expect(
      (await get().app.inject({ method: 'GET', url: url(bot.id), headers: viewer.headers })).statusCode,
    ).toBe(200);
    for (const [method, path] of [
      ['POST', url(bot.id)],
      ['PATCH', url(bot.id, `/${id}`)],
      ['DELETE', url(bot.id, `/${id}`)],
      ['POST', url(bot.id, `/${id}/test`)],
    ] as const) {
      const res = await get().app.inject({
        method,
        url: path,
        headers: viewer.headers,
        payload:
          method === 'PATCH'
            ? { name: 'x' }
            : method === 'POST' && path.endsWith('mailboxes')
              ? IMAP_MAILBOX
              : undefined,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
    const other = await buildTenant(get().ctx);
    const otherBot = await other.bot();
    for (const [method, path] of [
      ['GET', url(bot.id)],
      ['GET', url(bot.id, `/${id}`)],
      ['GET', url(otherBot.id, `/${id}`)],
      ['PATCH', url(bot.id, `/${id}`)],
      ['DELETE', url(bot.id, `/${id}`)],
      ['POST', url(bot.id, `/${id}/test`)],
      ['GET', url('not-a-uuid')],
      ['GET', url(otherBot.id, '/not-a-uuid')],
    ] as const) {
      const res = await get().app.inject({
        method,
        url: path,
        headers: other.owner.headers,
        payload: method === 'PATCH' ? { name: 'x' } : undefined,
      });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    const [row] = await get().db.query<{ name: string }>('SELECT name FROM mailboxes WHERE id = $1', [id]);
    expect(row!.name).toBe('Support');
  });

  it('lists received mails with their reason as a code (earlier codes mapped), per mailbox and per conversation', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    const { id } = (
      await get().app.inject({
        method: 'POST',
        url: url(bot.id),
        headers: tenant.owner.headers,
        payload: IMAP_MAILBOX,
      })
    ).json();
    const [conversation] = await ctx.db.query<{ id: string }>(
      `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id) VALUES ($1, $2, 'email', 'kunde@kunde.example')
       RETURNING id`,
      [tenant.id, bot.id],
    );
    const insert = (
      messageId: string,
      status: string,
      reason: string | null,
      conversationId: string | null,
    ) =>
      ctx.db.query(
        `INSERT INTO email_inbound (tenant_id, mailbox_id, message_id, body_hash, from_address, subject, status,
           skip_reason, conversation_id)
         VALUES ($1, $2, $3, $4, 'kunde@kunde.example', 'Frage', $5, $6, $7)`,
        [tenant.id, id, messageId, messageId.padEnd(64, '0').slice(0, 64), status, reason, conversationId],
      );
    await insert('<a@kunde.example>', 'skipped', 'mailer_daemon', null);
    await insert('<b@kunde.example>', 'skipped', 'sender_hourly_cap', conversation!.id);
    await insert('<c@kunde.example>', 'failed', 'Ungültige Eingabe', null);
    await insert('<d@kunde.example>', 'answered', null, conversation!.id);

    const skipped = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${id}/mails?status=skipped`),
      headers: tenant.owner.headers,
    });
    expect(skipped.statusCode).toBe(200);
    expect(
      skipped
        .json()
        .data.map((m: { skip_reason: string }) => m.skip_reason)
        .sort(),
    ).toEqual(['hourly_cap', 'mailer_daemon']);
    const all = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${id}/mails`),
      headers: tenant.owner.headers,
    });
    const failed = all.json().data.find((m: { status: string }) => m.status === 'failed');
    expect(failed).toMatchObject({ skip_reason: null, error: 'Ungültige Eingabe' });
    const bad = await get().app.inject({
      method: 'GET',
      url: url(bot.id, `/${id}/mails?status=nope`),
      headers: tenant.owner.headers,
    });
    expect(bad.statusCode).toBe(400);

    const inConversation = await get().app.inject({
      method: 'GET',
      url: `/api/conversations/${conversation!.id}/mails`,
      headers: tenant.owner.headers,
    });
    expect(inConversation.statusCode).toBe(200);
    expect(
      inConversation
        .json()
        .data.map((m: { status: string; skip_reason: string | null }) => [m.status, m.skip_reason])
        .sort(),
    ).toEqual([
      ['answered', null],
      ['skipped', 'hourly_cap'],
    ]);

    expect(
      (await get().app.inject({ method: 'GET', url: `/api/conversations/${conversation!.id}/mails` }))
        .statusCode,
    ).toBe(401);
    const agent = await tenant.user('agent');
    expect(
      (await get().app.inject({ method: 'GET', url: url(bot.id, `/${id}/mails`), headers: agent.headers }))
        .statusCode,
    ).toBe(403);
    const other = await buildTenant(ctx);
    const otherBot = await other.bot();
    for (const path of [
      url(bot.id, `/${id}/mails`),
      url(otherBot.id, `/${id}/mails`),
      `/api/conversations/${conversation!.id}/mails`,
      '/api/conversations/not-a-uuid/mails',
    ]) {
      const res = await get().app.inject({ method: 'GET', url: path, headers: other.owner.headers });
      expect(res.statusCode, path).toBe(404);
    }
  });
});
