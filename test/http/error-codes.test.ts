import { expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

describeApp('error bodies: a stable code and the refused field for every refusal', (get) => {
  it('lists every code in the OpenAPI document', async () => {
    const document = (await get().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const body = document.components.schemas.ErrorBody ?? document.components.schemas.Error;
    expect(body.required).toContain('code');
    expect(body.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it('names the field, its path and the limit of a schema refusal', async () => {
    const tenant = await buildTenant(get().ctx);
    const long = await get().app.inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: { name: 'x'.repeat(500) },
    });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({
      error: 'validation_error',
      code: 'field_too_long',
      details: { field: 'name', in: 'body', limit: expect.any(Number) },
    });
    const missing = await get().app.inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: {},
    });
    expect(missing.json()).toMatchObject({ code: 'field_required', details: { field: 'name' } });
    const unknown = await get().app.inject({
      method: 'POST',
      url: '/api/bots',
      headers: tenant.owner.headers,
      payload: { name: 'Bot', colour: 'red' },
    });
    expect(unknown.json()).toMatchObject({ code: 'field_unknown', details: { field: 'colour' } });
  });

  it('names the resource of a 404 and the code of a rule refusal, with nothing changed', async () => {
    const tenant = await buildTenant(get().ctx);
    const missing = await get().app.inject({
      method: 'GET',
      url: '/api/events/00000000-0000-4000-8000-000000000000',
      headers: tenant.owner.headers,
    });
    expect(missing.json()).toMatchObject({ code: 'not_found', details: { resource: 'event' } });
    const self = await get().app.inject({
      method: 'PATCH',
      url: `/api/users/${tenant.owner.id}`,
      headers: tenant.owner.headers,
      payload: { is_active: false },
    });
    expect(self.statusCode).toBe(409);
    expect(self.json()).toMatchObject({
      error: 'conflict',
      code: 'self_deactivation',
      details: { field: 'is_active' },
    });
    const rows = await get().db.query<{ is_active: boolean }>('SELECT is_active FROM users WHERE id = $1', [
      tenant.owner.id,
    ]);
    expect(rows[0]!.is_active).toBe(true);
  });

  it('words a refused webhook address by code and field, for another tenant too', async () => {
    const tenant = await buildTenant(get().ctx);
    const res = await get().app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: tenant.owner.headers,
      payload: { url: 'ftp://example.com/hook', event_types: ['lead.generated'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'url_scheme', details: { field: 'url' } });
    const anonymous = await get().app.inject({
      method: 'POST',
      url: '/api/webhooks',
      payload: { url: 'ftp://example.com/hook', event_types: ['lead.generated'] },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toMatch(/^(login_required|csrf_header_missing|unauthorized)$/);
  });
});
