import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportWorker, MAX_DOCUMENT_ATTEMPTS } from '../../src/modules/knowledge/imports/worker.js';
import { importDeps } from '../../src/modules/knowledge/imports/service.js';
import { describeApp, startApp, stopApp, type TestApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture, type UserFixture } from '../helpers/factories.js';
import { scannedPdf, textPdf } from './documents.js';
import { multipart, type FilePart } from './multipart.js';
import { waitFor } from '../helpers/net.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/knowledge/${name}`, import.meta.url));
const MISSING = '00000000-0000-4000-8000-000000000000';
const MAX_BYTES = 64 * 1024;
const ENV = {
  KNOWLEDGE_IMPORT_ALLOW_PRIVATE_TARGETS: 'true',
  KNOWLEDGE_IMPORT_MAX_BYTES: String(MAX_BYTES),
  KNOWLEDGE_IMPORT_MAX_PAGES: '3',
  KNOWLEDGE_IMPORT_TIMEOUT_MS: '3000',
};

/** A small web site: pages, robots.txt, a sitemap, a large page, redirects. */
function startSite() {
  const pages: Record<string, string> = {
    '/seite.html': page(
      'Lieferung',
      'Wir liefern Fahrräder innerhalb von zwei Werktagen in die ganze Stadt.',
    ),
    '/zwei.html': page(
      'Reparatur',
      'Reparaturen erledigen wir meist am selben Tag, Ersatzteile sind vorrätig.',
    ),
    '/drei.html': page('Gutscheine', 'Gutscheine gibt es im Laden und sind drei Jahre gültig.'),
    '/privat/geheim.html': page(
      'Geheim',
      'Diese Seite ist für Crawler gesperrt und darf nicht importiert werden.',
    ),
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (path === '/robots.txt') return void res.end('User-agent: *\nDisallow: /privat\n');
    if (path === '/sitemap.xml') {
      const locs = ['/seite.html', '/zwei.html', '/privat/geheim.html', '/drei.html']
        .map((p) => `<url><loc>${base}${p}</loc></url>`)
        .join('');
      res.setHeader('content-type', 'application/xml');
      return void res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs}<url><loc>http://other.test/x</loc></url></urlset>`,
      );
    }
    if (path === '/gross.html') {
      res.setHeader('content-type', 'text/html');
      return void res.end(page('Groß', 'x'.repeat(MAX_BYTES + 10)));
    }
    if (path === '/umleitung') {
      res.writeHead(302, { location: '/seite.html' });
      return void res.end();
    }
    if (path === '/fehlt.html') {
      res.writeHead(404);
      return void res.end('nicht da');
    }
    const body = pages[path];
    if (!body) {
      res.writeHead(404);
      return void res.end();
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(body);
  });
  return { server, pages };
}

function page(title: string, text: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><nav>Menü</nav><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
}

interface ImportBody {
  id: string;
  status: string;
  bot_id: string | null;
  scope: string;
  documents_total: number;
  documents_done: number;
  pages_total: number;
  pages_done: number;
  entries_created: number;
  errors: { document: string; code: string; message: string }[];
  documents: {
    name: string;
    status: string;
    pages: number | null;
    entries_created: number;
    error_code: string | null;
  }[];
}

describeApp(
  'knowledge imports',
  (get) => {
    let tenant: TenantFixture;
    let other: TenantFixture;
    let viewer: UserFixture;
    let editor: UserFixture;
    let botId: string;
    let secondBotId: string;
    let site: ReturnType<typeof startSite>;
    let base: string;

    beforeAll(async () => {
      tenant = await buildTenant(get().ctx);
      other = await buildTenant(get().ctx);
      viewer = await tenant.user('viewer');
      editor = await tenant.user('editor');
      botId = (await tenant.bot()).id;
      secondBotId = (await tenant.bot()).id;
      site = startSite();
      await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => site.server.close(resolve));
    });

    const prefix = (id = botId) => `/api/bots/${id}/knowledge/imports`;
    const upload = (url: string, files: FilePart[], headers: object = editor.headers, fields = {}) => {
      const body = multipart(files, fields);
      return get().app.inject({
        method: 'POST',
        url,
        headers: { ...(headers as Record<string, string>), 'content-type': body.contentType },
        payload: body.payload,
      });
    };
    const postJson = (url: string, payload: object, headers: object = editor.headers) =>
      get().app.inject({ method: 'POST', url, headers: headers as Record<string, string>, payload });
    const read = async (url: string, headers: object = viewer.headers) => {
      const response = await get().app.inject({
        method: 'GET',
        url,
        headers: headers as Record<string, string>,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<ImportBody>();
    };
    /** Runs the import worker until no import is open. */
    const drain = async () => {
      const worker = new ImportWorker(importDeps(get().ctx));
      for (let i = 0; i < 200 && (await worker.step()); i += 1);
    };
    const accepted = async (response: { statusCode: number; body: string; json<T>(): T }) => {
      expect(response.statusCode, response.body).toBe(202);
      return response.json<ImportBody>();
    };
    const entriesOf = (where: string, params: unknown[]) =>
      get().db.query<{
        title: string;
        source_url: string | null;
        source_name: string | null;
        source_page: number | null;
        content: string;
        bot_id: string | null;
      }>(
        `SELECT title, source_url, source_name, source_page, content, bot_id FROM knowledge_entries
         WHERE tenant_id = $1 AND ${where} ORDER BY created_at, title`,
        [tenant.id, ...params],
      );

    it('imports Markdown, DOCX, HTML and PDF files; a scanned PDF fails in words and creates nothing', async () => {
      const job = await accepted(
        await upload(prefix(), [
          { name: 'faq.md', type: 'text/markdown', content: fixture('faq.md') },
          { name: 'werkstatt.docx', type: 'application/octet-stream', content: fixture('werkstatt.docx') },
          { name: 'anfahrt.html', type: 'text/html', content: fixture('anfahrt.html') },
          {
            name: 'preisliste.pdf',
            type: 'application/pdf',
            content: textPdf(['Leihrad pro Tag 12 Euro', 'E-Bike pro Tag 35 Euro']),
          },
          { name: 'scan.pdf', type: 'application/pdf', content: scannedPdf() },
          {
            name: 'notiz.txt',
            type: 'text/plain',
            content: 'Montags ist Ruhetag.\n\nAm Dienstag öffnen wir später.',
          },
        ]),
      );
      expect(job).toMatchObject({
        status: 'queued',
        scope: 'bot',
        bot_id: botId,
        documents_total: 6,
        documents_done: 0,
      });

      await drain();
      const done = await read(`${prefix()}/${job.id}`);
      expect(done).toMatchObject({ status: 'done', documents_total: 6, documents_done: 6, pages_total: 0 });
      expect(done.errors).toEqual([
        { document: 'scan.pdf', code: 'no_text_layer', message: expect.stringContaining('keinen Text') },
      ]);
      const byName = Object.fromEntries(done.documents.map((d) => [d.name, d]));
      expect(byName['scan.pdf']).toMatchObject({ status: 'failed', entries_created: 0 });
      expect(byName['preisliste.pdf']).toMatchObject({ status: 'done', pages: 2, entries_created: 2 });

      const md = await entriesOf('source_name = $2', ['faq.md']);
      // One transaction: the same created_at; compared sorted.
      expect(md.map((e) => e.title).sort()).toEqual([
        'Fahrradverleih',
        'Fahrradverleih › Kaution',
        'Fahrradverleih › Öffnungszeiten',
        'Tourenvorschläge',
      ]);
      expect(md.every((e) => e.bot_id === botId)).toBe(true);
      const docx = await entriesOf('source_name = $2', ['werkstatt.docx']);
      expect(docx.map((e) => e.title).sort()).toEqual(['Termine', 'Werkstatt', 'Werkstatt › Preise']);
      expect(docx.find((e) => e.title === 'Werkstatt › Preise')!.content).toContain('15 Euro');
      const html = await entriesOf('source_name = $2', ['anfahrt.html']);
      const htmlText = html.map((e) => `${e.title}\n${e.content}`).join('\n');
      expect(htmlText).toContain('Hauptbahnhof');
      expect(htmlText).toContain('Parken');
      expect(htmlText).not.toContain('Startseite');
      expect(htmlText).not.toContain('tracking');
      const pdf = await entriesOf('source_name = $2', ['preisliste.pdf']);
      expect(pdf.map((e) => [e.source_page, e.title, e.content]).sort()).toEqual([
        [1, 'preisliste, Seite 1', 'Leihrad pro Tag 12 Euro'],
        [2, 'preisliste, Seite 2', 'E-Bike pro Tag 35 Euro'],
      ]);
      expect(await entriesOf('source_name = $2', ['scan.pdf'])).toEqual([]);
      expect(done.entries_created).toBe(md.length + docx.length + html.length + pdf.length + 1);

      // The chat cites imported entries with file name and page.
      const chat = await get().app.inject({
        method: 'POST',
        url: `/api/bot-chat/${botId}/chat`,
        headers: tenant.keyHeaders,
        payload: { message: 'Was kostet ein E-Bike pro Tag?' },
      });
      expect(chat.statusCode, chat.body).toBe(200);
      const sources = chat.json<{ sources: Record<string, unknown>[] }>().sources;
      expect(sources[0]).toMatchObject({
        title: 'preisliste, Seite 2',
        source_name: 'preisliste.pdf',
        page: 2,
      });
      const entry = await get().app.inject({
        method: 'GET',
        url: `/api/bots/${botId}/knowledge?limit=100`,
        headers: viewer.headers as Record<string, string>,
      });
      expect(entry.json<{ data: Record<string, unknown>[] }>().data).toContainEqual(
        expect.objectContaining({ source_name: 'preisliste.pdf', source_page: 2 }),
      );
    });

    it('does not import the same file twice into a bot, but does into another bot', async () => {
      const files = [{ name: 'faq-kopie.md', type: 'text/markdown', content: fixture('faq.md') }];
      const before = (await entriesOf('bot_id = $2', [botId])).length;
      const again = await accepted(await upload(prefix(), files));
      await drain();
      const view = await read(`${prefix()}/${again.id}`);
      expect(view).toMatchObject({ status: 'done', entries_created: 0, errors: [] });
      expect(view.documents[0]).toMatchObject({ status: 'skipped' });
      expect((await entriesOf('bot_id = $2', [botId])).length).toBe(before);

      const elsewhere = await accepted(await upload(prefix(secondBotId), files));
      await drain();
      expect((await read(`${prefix(secondBotId)}/${elsewhere.id}`)).entries_created).toBe(4);
    });

    it('imports a web page by URL; the same page again is skipped, a changed page replaces its entries', async () => {
      const url = `${base}/seite.html`;
      const first = await accepted(await postJson(prefix(), { url }));
      expect(first).toMatchObject({ pages_total: 1, pages_done: 0, documents_total: 1 });
      await drain();
      expect(await read(`${prefix()}/${first.id}`)).toMatchObject({
        status: 'done',
        pages_done: 1,
        entries_created: 1,
      });
      const stored = await entriesOf('source_url = $2', [url]);
      expect(stored).toHaveLength(1);
      expect(stored[0]!.content).toContain('zwei Werktagen');

      const same = await accepted(await postJson(prefix(), { url }));
      await drain();
      expect((await read(`${prefix()}/${same.id}`)).documents[0]!.status).toBe('skipped');

      site.pages['/seite.html'] = page(
        'Lieferung',
        'Ab sofort liefern wir am nächsten Werktag, auch samstags.',
      );
      const changed = await accepted(await postJson(prefix(), { url: `${url}#abschnitt` }));
      await drain();
      expect(await read(`${prefix()}/${changed.id}`)).toMatchObject({ status: 'done', entries_created: 1 });
      const replaced = await entriesOf('source_url = $2', [url]);
      expect(replaced).toHaveLength(1);
      expect(replaced[0]!.content).toContain('nächsten Werktag');
    });

    it('follows redirects, honours robots.txt, the size limit and HTTP errors per document', async () => {
      const redirected = await accepted(await postJson(prefix(secondBotId), { url: `${base}/umleitung` }));
      const blocked = await accepted(await postJson(prefix(), { url: `${base}/privat/geheim.html` }));
      const large = await accepted(await postJson(prefix(), { url: `${base}/gross.html` }));
      const missing = await accepted(await postJson(prefix(), { url: `${base}/fehlt.html` }));
      await drain();
      expect(await read(`${prefix(secondBotId)}/${redirected.id}`)).toMatchObject({
        status: 'done',
        entries_created: 1,
      });
      const codes = async (id: string) => (await read(`${prefix()}/${id}`)).errors.map((e) => e.code);
      expect(await read(`${prefix()}/${blocked.id}`)).toMatchObject({
        status: 'failed',
        entries_created: 0,
        errors: [{ code: 'robots_disallowed', message: expect.stringContaining('robots.txt') }],
      });
      expect(await codes(large.id)).toEqual(['too_large']);
      expect(await codes(missing.id)).toEqual(['http_status']);
      expect(await entriesOf('source_url LIKE $2', ['%geheim%'])).toEqual([]);
    });

    it('imports the pages of a sitemap up to the page limit, same origin only', async () => {
      const job = await accepted(await postJson(prefix(), { sitemap_url: `${base}/sitemap.xml` }));
      expect(job).toMatchObject({ documents_total: 0, pages_total: 0 });
      await drain();
      const view = await read(`${prefix()}/${job.id}`);
      expect(view).toMatchObject({ status: 'done', pages_total: 3, pages_done: 3 });
      expect(view.documents.map((d) => [d.name.replace(base, ''), d.status])).toEqual([
        ['/seite.html', 'skipped'],
        ['/zwei.html', 'done'],
        ['/privat/geheim.html', 'failed'],
      ]);
      expect(view.errors.map((e) => e.code)).toEqual(['page_limit', 'robots_disallowed']);
      expect(view.errors[0]!.message).toContain('4 Seiten');
    });

    it('shows progress step by step and lists recent imports', async () => {
      const job = await accepted(
        await upload(prefix(secondBotId), [
          { name: 'a.txt', type: 'text/plain', content: 'Erstes Dokument über Sättel und Lenker.' },
          { name: 'b.txt', type: 'text/plain', content: 'Zweites Dokument über Klingeln und Lichter.' },
        ]),
      );
      const worker = new ImportWorker(importDeps(get().ctx));
      // Other bots' open imports are finished first by earlier tests; this one is the only one open.
      expect(await worker.step()).toBe(true);
      expect(await read(`${prefix(secondBotId)}/${job.id}`)).toMatchObject({
        status: 'running',
        documents_done: 1,
        documents_total: 2,
      });
      await drain();
      expect(await read(`${prefix(secondBotId)}/${job.id}`)).toMatchObject({
        status: 'done',
        documents_done: 2,
        entries_created: 2,
      });

      const list = await read(`${prefix(secondBotId)}?limit=1`);
      const page = list as unknown as { data: ImportBody[]; next_cursor: string | null };
      expect(page.data.map((j) => j.id)).toEqual([job.id]);
      expect(page.data[0]).not.toHaveProperty('documents');
      expect(page.next_cursor).toEqual(expect.any(String));
      const next = (await read(`${prefix(secondBotId)}?limit=100&cursor=${page.next_cursor}`)) as unknown as {
        data: ImportBody[];
        next_cursor: string | null;
      };
      expect(next.data.length).toBeGreaterThan(0);
      expect(next.data.map((j) => j.id)).not.toContain(job.id);
      expect(next.next_cursor).toBeNull();
    });

    it('imports tenant-wide knowledge through /api/knowledge/imports', async () => {
      const job = await accepted(
        await upload('/api/knowledge/imports', [
          { name: 'agb.md', type: 'text/markdown', content: '# AGB\n\nMiete ist im Voraus zu zahlen.' },
        ]),
      );
      expect(job).toMatchObject({ scope: 'tenant', bot_id: null });
      await drain();
      expect(await read(`/api/knowledge/imports/${job.id}`)).toMatchObject({
        status: 'done',
        entries_created: 1,
      });
      expect((await entriesOf('source_name = $2', ['agb.md']))[0]!.bot_id).toBeNull();
      // A tenant-wide import is not reachable through a bot, nor a bot's through the tenant path.
      expect(
        (await get().app.inject({ method: 'GET', url: `${prefix()}/${job.id}`, headers: viewer.headers }))
          .statusCode,
      ).toBe(404);
      const list = (await read('/api/knowledge/imports')) as unknown as { data: ImportBody[] };
      expect(list.data.every((j) => j.scope === 'tenant')).toBe(true);
    });

    it('writes a document all or nothing: too many sections fail without a single entry', async () => {
      const sections = Array.from({ length: 501 }, (_, i) => `## Abschnitt ${i}\n\nText ${i}.`).join('\n\n');
      const job = await accepted(
        await upload(prefix(), [{ name: 'riesig.md', type: 'text/markdown', content: sections }]),
      );
      await drain();
      expect((await read(`${prefix()}/${job.id}`)).errors).toEqual([
        expect.objectContaining({
          code: 'too_many_entries',
          message: expect.stringContaining('mehr als 500 Einträge'),
        }),
      ]);
      expect(await entriesOf('source_name = $2', ['riesig.md'])).toEqual([]);
    });

    it('a worker that lost its lease writes nothing; the next worker finishes the import', async () => {
      const job = await accepted(
        await upload(prefix(), [
          { name: 'lease.txt', type: 'text/plain', content: 'Probefahrten sind kostenlos.' },
        ]),
      );
      // Another worker takes the import over while the first one is busy with the document.
      const db = get().db;
      const original = db.transaction.bind(db);
      let stolen = false;
      db.transaction = (async (fn: Parameters<typeof original>[0]) => {
        if (!stolen) {
          stolen = true;
          await db.query('UPDATE knowledge_imports SET lease_token = gen_random_uuid() WHERE id = $1', [
            job.id,
          ]);
        }
        return original(fn);
      }) as typeof db.transaction;
      try {
        await new ImportWorker(importDeps(get().ctx)).step();
      } finally {
        db.transaction = original;
      }
      expect(await entriesOf('source_name = $2', ['lease.txt'])).toEqual([]);
      expect((await read(`${prefix()}/${job.id}`)).documents_done).toBe(0);
      await db.query(
        "UPDATE knowledge_imports SET locked_until = now() - interval '1 second' WHERE id = $1",
        [job.id],
      );
      await drain();
      expect(await read(`${prefix()}/${job.id}`)).toMatchObject({ status: 'done', entries_created: 1 });
    });

    it('fails a document in words once it ended the worker; it is not taken up again', async () => {
      const job = await accepted(
        await upload(prefix(), [
          { name: 'absturz.txt', type: 'text/plain', content: 'Dieser Text bringt den Worker zu Fall.' },
          { name: 'gut.txt', type: 'text/plain', content: 'Leihräder gibt es am Bahnhof.' },
        ]),
      );
      expect(MAX_DOCUMENT_ATTEMPTS).toBe(1);
      const crashing = new ImportWorker(importDeps(get().ctx));
      // The service dies while reading the document: nothing is stored, the lease runs out.
      const reader = crashing as unknown as { importDocument: () => Promise<never> };
      reader.importDocument = () => Promise.reject(new Error('worker crashed'));
      await expect(crashing.step()).rejects.toThrow('worker crashed');
      await get().db.query(
        "UPDATE knowledge_imports SET locked_until = now() - interval '1 second' WHERE id = $1",
        [job.id],
      );
      await drain();
      const done = await read(`${prefix()}/${job.id}`);
      expect(done).toMatchObject({ status: 'done', entries_created: 1 });
      expect(done.documents.find((d) => d.name === 'absturz.txt')).toMatchObject({
        status: 'failed',
        error_code: 'attempts_exhausted',
      });
      expect(done.errors).toEqual([
        {
          document: 'absturz.txt',
          code: 'attempts_exhausted',
          message:
            'Die Verarbeitung des Dokuments wurde unterbrochen (der Dienst wurde dabei beendet) und wird nicht wiederholt. Bitte das Dokument prüfen und erneut hochladen.',
        },
      ]);
      expect(await entriesOf('source_name = $2', ['absturz.txt'])).toEqual([]);
    });

    it('is picked up by the scheduler of a restarted instance, also when a stopped worker held it', async () => {
      const waiting = await accepted(
        await upload(prefix(), [
          { name: 'neu.txt', type: 'text/plain', content: 'Helme verleihen wir gratis.' },
        ]),
      );
      const held = await accepted(
        await upload(prefix(), [
          { name: 'alt.txt', type: 'text/plain', content: 'Kindersitze kosten 5 Euro.' },
        ]),
      );
      await get().db.query(
        `UPDATE knowledge_imports SET status = 'running', lease_token = gen_random_uuid(),
           locked_until = now() - interval '1 second' WHERE id = $1`,
        [held.id],
      );
      let second: TestApp | undefined;
      try {
        second = await startApp(get().database, {
          env: { ...ENV, WEBHOOK_WORKER: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
        });
        await waitFor(
          async () => {
            const states = await Promise.all(
              [waiting.id, held.id].map(async (id) => (await read(`${prefix()}/${id}`)).status),
            );
            return states.every((s) => s === 'done');
          },
          15_000,
          'both imports done by the restarted worker',
          50,
        );
      } finally {
        if (second) await stopApp(second);
      }
      expect((await read(`${prefix()}/${waiting.id}`)).status).toBe('done');
      expect((await read(`${prefix()}/${held.id}`)).status).toBe('done');
    });

    describe('errors and security', () => {
      it('refuses requests without anything to import, unknown fields, too many or too large files', async () => {
        expect((await postJson(prefix(), {})).statusCode).toBe(400);
        expect((await postJson(prefix(), { url: `${base}/seite.html`, extra: 1 })).statusCode).toBe(400);
        expect((await postJson(prefix(), { url: 'ftp://example.test/x' })).statusCode).toBe(400);
        const many = Array.from({ length: 11 }, (_, i) => ({
          name: `${i}.txt`,
          type: 'text/plain',
          content: `Text ${i}`,
        }));
        expect((await upload(prefix(), many)).statusCode).toBe(400);
        const large = await upload(prefix(), [
          { name: 'gross.txt', type: 'text/plain', content: 'x'.repeat(MAX_BYTES + 1) },
        ]);
        expect(large.statusCode).toBe(413);
        expect(large.json()).toMatchObject({ error: 'payload_too_large' });
        expect((await upload(prefix(), [], editor.headers, { unbekannt: 'x' })).statusCode).toBe(400);
        const xml = await get().app.inject({
          method: 'POST',
          url: prefix(),
          headers: { ...editor.headers, 'content-type': 'application/xml' },
          payload: '<url/>',
        });
        expect(xml.statusCode).toBe(415);
      });

      it('answers 401 without a session and 403 to a viewer writing', async () => {
        const job = await accepted(await postJson(prefix(), { url: `${base}/zwei.html` }));
        for (const url of [prefix(), `${prefix()}/${job.id}`]) {
          expect((await get().app.inject({ method: 'GET', url })).statusCode).toBe(401);
        }
        expect(
          (await get().app.inject({ method: 'POST', url: prefix(), payload: { url: `${base}/x` } }))
            .statusCode,
        ).toBe(401);
        expect((await postJson(prefix(), { url: `${base}/zwei.html` }, viewer.headers)).statusCode).toBe(403);
        expect(
          (await upload(prefix(), [{ name: 'a.txt', type: 'text/plain', content: 'a' }], viewer.headers))
            .statusCode,
        ).toBe(403);
        expect(
          (await postJson('/api/knowledge/imports', { url: `${base}/x` }, viewer.headers)).statusCode,
        ).toBe(403);
        // A viewer may read imports.
        await read(`${prefix()}/${job.id}`, viewer.headers);
        await drain();
      });

      it('answers another tenant as if the bot or import did not exist', async () => {
        const job = await accepted(await postJson(prefix(), { url: `${base}/drei.html` }));
        const unknown = async (method: 'GET' | 'POST', url: string, headers: object) => {
          const response = await get().app.inject({
            method,
            url,
            headers: headers as Record<string, string>,
            ...(method === 'POST' ? { payload: { url: `${base}/drei.html` } } : {}),
          });
          expect(response.statusCode, `${method} ${url}`).toBe(404);
          expect(response.json()).toMatchObject({ error: 'not_found' });
        };
        await unknown('GET', `${prefix()}/${job.id}`, other.owner.headers);
        await unknown('GET', prefix(), other.owner.headers);
        await unknown('POST', prefix(), other.owner.headers);
        await unknown('GET', `/api/knowledge/imports/${job.id}`, other.owner.headers);
        await unknown('GET', `/api/knowledge/imports/${job.id}`, tenant.owner.headers);
        await unknown('GET', `${prefix(secondBotId)}/${job.id}`, tenant.owner.headers);
        await unknown('GET', `${prefix()}/${MISSING}`, tenant.owner.headers);
        await unknown('GET', `${prefix()}/not-a-uuid`, tenant.owner.headers);
        await unknown('POST', prefix(MISSING), tenant.owner.headers);
        const otherList = (await read('/api/knowledge/imports', other.owner.headers)) as unknown as {
          data: unknown[];
        };
        expect(otherList.data).toEqual([]);
        await drain();
      });
    });
  },
  { env: ENV },
);

describeApp(
  'knowledge imports without private targets',
  (get) => {
    it('refuses loopback and private addresses when they are not allowed', async () => {
      const tenant = await buildTenant(get().ctx);
      const bot = await tenant.bot();
      for (const body of [
        { url: 'http://127.0.0.1:9/seite.html' },
        { url: 'http://10.0.0.8/intern' },
        { sitemap_url: 'http://[::ffff:192.168.1.1]/sitemap.xml' },
        { url: 'http://169.254.169.254/latest/meta-data/' },
      ]) {
        const response = await get().app.inject({
          method: 'POST',
          url: `/api/bots/${bot.id}/knowledge/imports`,
          headers: tenant.owner.headers,
          payload: body,
        });
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().message).toMatch(/refused/);
        // The refused field and why, for the dashboard to say it at the field in its own words.
        expect(response.json()).toMatchObject({
          code: 'url_host_internal',
          details: { field: Object.keys(body)[0], host: expect.any(String) },
        });
      }
      expect(
        (await get().db.query('SELECT 1 FROM knowledge_imports WHERE tenant_id = $1', [tenant.id])).length,
      ).toBe(0);
    });
  },
  { env: { KNOWLEDGE_IMPORT_TIMEOUT_MS: '2000' } },
);
