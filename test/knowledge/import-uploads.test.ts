import { PassThrough } from 'node:stream';
import { beforeAll, expect, it } from 'vitest';
import { uploadBudgetOf } from '../../src/modules/knowledge/imports/routes.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture, type UserFixture } from '../helpers/factories.js';
import { multipart } from './multipart.js';
import { waitFor } from '../helpers/net.js';

const KB = 1024;
const ENV = {
  KNOWLEDGE_IMPORT_MAX_BYTES: String(64 * KB),
  KNOWLEDGE_IMPORT_MAX_REQUEST_BYTES: String(100 * KB),
  KNOWLEDGE_IMPORT_MAX_TENANT_UPLOAD_BYTES: String(120 * KB),
};

describeApp(
  'knowledge import uploads: bounds and malformed bodies',
  (get) => {
    let tenant: TenantFixture;
    let other: TenantFixture;
    let editor: UserFixture;
    let botId: string;

    beforeAll(async () => {
      tenant = await buildTenant(get().ctx);
      other = await buildTenant(get().ctx);
      editor = await tenant.user('editor');
      botId = (await tenant.bot()).id;
    });

    const prefix = () => `/api/bots/${botId}/knowledge/imports`;
    const importCount = async () =>
      (
        await get().db.query<{ n: number }>(
          `SELECT (SELECT count(*)::int FROM knowledge_imports WHERE tenant_id = $1)
                + (SELECT count(*)::int FROM knowledge_import_documents WHERE tenant_id = $1) AS n`,
          [tenant.id],
        )
      )[0]!.n;
    const text = (name: string, bytes: number) => ({ name, type: 'text/plain', content: 'x'.repeat(bytes) });
    const send = (
      url: string,
      contentType: string,
      payload: Buffer | string | PassThrough,
      headers: object = editor.headers,
    ) =>
      get().app.inject({
        method: 'POST',
        url,
        headers: { ...(headers as Record<string, string>), 'content-type': contentType },
        payload,
      });

    it('answers every malformed multipart body with 400 and the usual error body, writing nothing', async () => {
      const before = await importCount();
      const good = multipart([text('a.txt', 10)]);
      const boundary = good.contentType.split('boundary=')[1]!;
      const cases: [string, string, string | Buffer][] = [
        [
          '/api/knowledge/imports',
          'multipart/form-data; boundary=x',
          JSON.stringify({ url: 'https://example.test/' }),
        ],
        [prefix(), 'multipart/form-data', good.payload],
        [prefix(), 'multipart/form-data; boundary=', good.payload],
        [prefix(), good.contentType, ''],
        [prefix(), good.contentType, good.payload.subarray(0, good.payload.length - 30)],
        [prefix(), good.contentType, `--${boundary}\r\nganz kaputt\r\n\r\nx\r\n--${boundary}--\r\n`],
        [
          prefix(),
          good.contentType,
          `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${boundary}--\r\n`,
        ],
        [prefix(), 'multipart/form-data; boundary="unterminated', good.payload],
        [prefix(), 'multipart/mixed; boundary=x', good.payload],
      ];
      for (const [url, contentType, payload] of cases) {
        const response = await send(url, contentType, payload);
        const label = `${contentType} ${String(payload).slice(0, 60)}`;
        expect(response.statusCode, `${label}: ${response.body}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `${label}: ${response.body}`).toBeLessThan(500);
        // The usual error body: the class, the refusal's code and a sentence (details where there are some).
        const keys = Object.keys(response.json()).filter((key) => key !== 'details');
        expect(keys.sort(), label).toEqual(['code', 'error', 'message']);
        if (response.statusCode !== 415) expect(response.json().error, label).toBe('validation_error');
      }
      expect(await importCount()).toBe(before);
    });

    it('refuses a request whose files together are over the request bound with 413, storing nothing', async () => {
      const before = await importCount();
      const body = multipart([text('a.txt', 60 * KB), text('b.txt', 60 * KB)]);
      const response = await send(prefix(), body.contentType, body.payload);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({
        error: 'payload_too_large',
        details: { max_request_bytes: 100 * KB },
      });
      expect(await importCount()).toBe(before);
      expect(uploadBudgetOf(get().ctx).used(tenant.id)).toBe(0);
      const within = multipart([text('c.txt', 40 * KB), text('d.txt', 40 * KB)]);
      expect((await send(prefix(), within.contentType, within.payload)).statusCode).toBe(202);
    });

    it("refuses uploads over the tenant's bytes in flight with 429 and Retry-After; other tenants go on", async () => {
      const budget = uploadBudgetOf(get().ctx);
      const slow = multipart([text('langsam.txt', 60 * KB)]);
      const stream = new PassThrough();
      const pending = send(prefix(), slow.contentType, stream);
      stream.write(slow.payload.subarray(0, slow.payload.length - 100));
      await waitFor(() => budget.used(tenant.id) >= 50 * KB, 5000, '50 KB of the upload in flight', 10);

      const before = await importCount();
      const second = multipart([text('zweite.txt', 62 * KB)]);
      const busy = await send(prefix(), second.contentType, second.payload);
      expect(busy.statusCode, busy.body).toBe(429);
      expect(busy.headers['retry-after']).toBe('10');
      expect(busy.json()).toMatchObject({ error: 'rate_limited', details: { max_tenant_bytes: 120 * KB } });
      expect(await importCount()).toBe(before);

      const otherBot = (await other.bot()).id;
      const elsewhere = await send(
        `/api/bots/${otherBot}/knowledge/imports`,
        second.contentType,
        second.payload,
        other.owner.headers,
      );
      expect(elsewhere.statusCode, elsewhere.body).toBe(202);

      stream.end(slow.payload.subarray(slow.payload.length - 100));
      expect((await pending).statusCode).toBe(202);
      expect(budget.used(tenant.id)).toBe(0);
      expect((await send(prefix(), second.contentType, second.payload)).statusCode).toBe(202);
    });

    it('keeps 401 and 403 before reading any upload', async () => {
      const body = multipart([text('a.txt', 10)]);
      expect((await send(prefix(), body.contentType, body.payload, {})).statusCode).toBe(401);
      const viewer = await tenant.user('viewer');
      expect((await send(prefix(), body.contentType, body.payload, viewer.headers)).statusCode).toBe(403);
      expect((await send(prefix(), body.contentType, body.payload, other.owner.headers)).statusCode).toBe(
        404,
      );
    });
  },
  { env: ENV },
);
