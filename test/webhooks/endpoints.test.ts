import { expect, it } from 'vitest';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

const PUBLIC_URL = 'https://93.184.216.34/hooks/parley';

describeApp('webhook endpoints: registration and SSRF refusals', (get) => {
  it.each([
    ['loopback', 'http://127.0.0.1:8080/hook'],
    ['loopback by name', 'http://localhost/hook'],
    ['private', 'https://10.0.0.5/hook'],
    ['private 192.168', 'https://192.168.0.10/hook'],
    ['metadata', 'http://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['unspecified', 'http://0.0.0.0/hook'],
  ])('refuses a %s target and stores nothing', async (_name, url) => {
    const tenant = await buildTenant(get().ctx);
    const res = await get().app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url, event_types: ['lead.generated'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'validation_error',
      code: 'url_host_internal',
      message: expect.stringMatching(/url.*refused/),
      details: { field: 'url' },
    });
    const rows = await get().db.query('SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1', [tenant.id]);
    expect(rows).toHaveLength(0);
  });

  it('accepts a public address and refuses changing it to an internal one', async () => {
    const tenant = await buildTenant(get().ctx);
    const created = await get().app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url: PUBLIC_URL, event_types: ['booking.created'] },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().webhook.id;
    const patched = await get().app.inject({
      method: 'PATCH',
      url: `/api/webhooks/${id}`,
      headers: tenant.owner.headers,
      payload: { url: 'http://127.0.0.1/x' },
    });
    expect(patched.statusCode).toBe(400);
    const [row] = await get().db.query<{ url: string }>('SELECT url FROM webhook_endpoints WHERE id = $1', [
      id,
    ]);
    expect(row!.url).toBe(PUBLIC_URL);
  });
});

describeApp(
  'webhook endpoints: /api/webhooks',
  (get) => {
    const create = (headers: Record<string, string>, payload: Record<string, unknown>) =>
      get().app.inject({ method: 'POST', url: '/api/webhooks', headers, payload });

    it('registers an endpoint, shows the whsec_ secret once and never again', async () => {
      const tenant = await buildTenant(get().ctx);
      const res = await create(tenant.owner.headers, {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['conversation.ended', 'lead.generated'],
        description: 'CRM',
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.secret).toMatch(/^whsec_/);
      expect(body.webhook).toMatchObject({
        url: 'http://127.0.0.1:9/hook',
        event_types: ['conversation.ended', 'lead.generated'],
        description: 'CRM',
        is_active: true,
        disabled_reason: null,
      });
      const list = await get().app.inject({
        method: 'GET',
        url: '/api/webhooks',
        headers: tenant.owner.headers,
      });
      expect(list.statusCode).toBe(200);
      expect(list.json().data.map((w: { id: string }) => w.id)).toEqual([body.webhook.id]);
      expect(list.json().next_cursor).toBeNull();
      expect(list.body).not.toContain(body.secret.slice(6));
      const one = await get().app.inject({
        method: 'GET',
        url: `/api/webhooks/${body.webhook.id}`,
        headers: tenant.owner.headers,
      });
      expect(one.json().webhook.id).toBe(body.webhook.id);
      expect(one.body).not.toContain('whsec_');
    });

    it('validates the body', async () => {
      const tenant = await buildTenant(get().ctx);
      for (const payload of [
        { url: 'http://127.0.0.1/x', event_types: [] },
        { url: 'http://127.0.0.1/x', event_types: ['order.shipped'] },
        { url: 'http://127.0.0.1/x', event_types: ['lead.generated', 'lead.generated'] },
        { url: 'http://127.0.0.1/x', event_types: ['lead.generated'], secret: 'mine' },
        { event_types: ['lead.generated'] },
        { url: 'ftp://127.0.0.1/x', event_types: ['lead.generated'] },
      ]) {
        const res = await create(tenant.owner.headers, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error).toBe('validation_error');
      }
    });

    it('updates fields, and switching on again clears an automatic disable', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = (
        await create(tenant.owner.headers, { url: 'http://127.0.0.1/a', event_types: ['lead.generated'] })
      ).json();
      await get().db.query(
        `UPDATE webhook_endpoints SET is_active = false, disabled_reason = 'gone', disabled_at = now() WHERE id = $1`,
        [webhook.id],
      );
      const res = await get().app.inject({
        method: 'PATCH',
        url: `/api/webhooks/${webhook.id}`,
        headers: tenant.owner.headers,
        payload: { is_active: true, event_types: ['booking.created'], description: null },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().webhook).toMatchObject({
        is_active: true,
        disabled_reason: null,
        disabled_at: null,
        event_types: ['booking.created'],
        description: null,
      });
      const empty = await get().app.inject({
        method: 'PATCH',
        url: `/api/webhooks/${webhook.id}`,
        headers: tenant.owner.headers,
        payload: {},
      });
      expect(empty.statusCode).toBe(400);
    });

    it('rotates the secret: a new one is shown, the previous one stays valid for a grace period', async () => {
      const tenant = await buildTenant(get().ctx);
      const first = (
        await create(tenant.owner.headers, { url: 'http://127.0.0.1/a', event_types: ['lead.generated'] })
      ).json();
      const res = await get().app.inject({
        method: 'POST',
        url: `/api/webhooks/${first.webhook.id}/rotate-secret`,
        headers: tenant.owner.headers,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().secret).toMatch(/^whsec_/);
      expect(res.json().secret).not.toBe(first.secret);
      const graceUntil = Date.parse(res.json().webhook.previous_secret_expires_at);
      expect(graceUntil).toBeGreaterThan(Date.now() + 23 * 3600_000);
    });

    it('deletes an endpoint', async () => {
      const tenant = await buildTenant(get().ctx);
      const { webhook } = (
        await create(tenant.owner.headers, { url: 'http://127.0.0.1/a', event_types: ['lead.generated'] })
      ).json();
      const del = await get().app.inject({
        method: 'DELETE',
        url: `/api/webhooks/${webhook.id}`,
        headers: tenant.owner.headers,
      });
      expect(del.statusCode).toBe(204);
      const again = await get().app.inject({
        method: 'DELETE',
        url: `/api/webhooks/${webhook.id}`,
        headers: tenant.owner.headers,
      });
      expect(again.statusCode).toBe(404);
    });

    it('limits the number of endpoints per tenant', async () => {
      const tenant = await buildTenant(get().ctx);
      const results = await Promise.all(
        Array.from({ length: 22 }, (_, i) =>
          create(tenant.owner.headers, { url: `http://127.0.0.1/${i}`, event_types: ['lead.generated'] }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 201)).toHaveLength(20);
      expect(results.filter((r) => r.statusCode === 409)).toHaveLength(2);
    });

    it('needs a session (401) and webhook:manage (403 for editor and viewer; admin may)', async () => {
      const tenant = await buildTenant(get().ctx);
      expect((await get().app.inject({ method: 'GET', url: '/api/webhooks' })).statusCode).toBe(401);
      expect(
        (await get().app.inject({ method: 'GET', url: '/api/webhooks', headers: tenant.keyHeaders }))
          .statusCode,
      ).toBe(401);
      for (const role of ['editor', 'viewer'] as const) {
        const user = await tenant.user(role);
        const res = await create(user.headers, {
          url: 'http://127.0.0.1/a',
          event_types: ['lead.generated'],
        });
        expect(res.statusCode).toBe(403);
        expect(
          (await get().app.inject({ method: 'GET', url: '/api/webhooks', headers: user.headers })).statusCode,
        ).toBe(403);
      }
      const admin = await tenant.user('admin');
      expect(
        (await create(admin.headers, { url: 'http://127.0.0.1/a', event_types: ['lead.generated'] }))
          .statusCode,
      ).toBe(201);
    });

    it("treats another tenant's endpoint and malformed ids as missing (404)", async () => {
      const owner = await buildTenant(get().ctx);
      const other = await buildTenant(get().ctx);
      const { webhook } = (
        await create(owner.owner.headers, { url: 'http://127.0.0.1/a', event_types: ['lead.generated'] })
      ).json();
      const h = other.owner.headers;
      const calls = [
        { method: 'GET' as const, url: `/api/webhooks/${webhook.id}` },
        { method: 'PATCH' as const, url: `/api/webhooks/${webhook.id}`, payload: { is_active: false } },
        { method: 'DELETE' as const, url: `/api/webhooks/${webhook.id}` },
        { method: 'POST' as const, url: `/api/webhooks/${webhook.id}/rotate-secret` },
        { method: 'GET' as const, url: `/api/webhooks/${webhook.id}/deliveries` },
        { method: 'GET' as const, url: '/api/webhooks/not-a-uuid' },
        { method: 'GET' as const, url: '/api/webhooks/not-a-uuid/deliveries' },
      ];
      for (const call of calls) {
        const res = await get().app.inject({ ...call, headers: h });
        expect(res.statusCode, `${call.method} ${call.url}`).toBe(404);
      }
      const [row] = await get().db.query<{ is_active: boolean }>(
        'SELECT is_active FROM webhook_endpoints WHERE id = $1',
        [webhook.id],
      );
      expect(row!.is_active).toBe(true);
      expect(
        (await get().app.inject({ method: 'GET', url: '/api/webhooks', headers: h })).json().data,
      ).toEqual([]);
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
