import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { parserPool, type ParserHook } from '../../src/modules/knowledge/imports/document-parser.js';
import { ImportWorker } from '../../src/modules/knowledge/imports/worker.js';
import { importDeps, type ImportDeps } from '../../src/modules/knowledge/imports/service.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant, type TenantFixture } from '../helpers/factories.js';
import { textPdf, zipBombDocx } from './documents.js';
import { multipart, type FilePart } from './multipart.js';
import { waitFor } from '../helpers/net.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * Hostile documents fail in words on the import record while the service goes on: a concurrent
 * /health probe and a chat of another tenant answer while the document is still being parsed
 * (the parse is held by a test hook until they have answered, or hangs until its deadline).
 */
describeApp(
  'hostile documents do not take the service down',
  (get) => {
    let tenant: TenantFixture;
    let other: TenantFixture;
    let botId: string;
    let otherBotId: string;

    beforeAll(async () => {
      tenant = await buildTenant(get().ctx);
      other = await buildTenant(get().ctx);
      botId = (await tenant.bot()).id;
      otherBotId = (await other.bot()).id;
    });

    const prefix = () => `/api/bots/${botId}/knowledge/imports`;
    const upload = async (file: FilePart) => {
      const body = multipart([file]);
      const response = await get().app.inject({
        method: 'POST',
        url: prefix(),
        headers: { ...tenant.owner.headers, 'content-type': body.contentType },
        payload: body.payload,
      });
      expect(response.statusCode, response.body).toBe(202);
      return response.json<{ id: string }>().id;
    };
    const documentOf = async (importId: string) => {
      const response = await get().app.inject({
        method: 'GET',
        url: `${prefix()}/${importId}`,
        headers: tenant.owner.headers,
      });
      return response.json<{
        status: string;
        documents: { status: string; error_code: string | null; error: string | null }[];
      }>().documents[0]!;
    };
    /** /health and a chat of the other tenant, both answered. */
    const serviceAnswers = async () => {
      const health = await get().app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode, health.body).toBe(200);
      const chat = await get().app.inject({
        method: 'POST',
        url: `/api/bot-chat/${otherBotId}/chat`,
        headers: other.keyHeaders,
        payload: { message: 'Wann habt ihr geöffnet?', sender_id: `kunde-${randomUUID()}` },
      });
      expect(chat.statusCode, chat.body).toBe(200);
      expect(chat.json<{ reply: string }>().reply).toEqual(expect.any(String));
    };
    /**
     * Runs one import step with the parser hook; checks that the service answers while the
     * document is being parsed, then lets the parse go on (when held) and waits for the step.
     */
    const importWhileServing = async (
      importId: string,
      hook: ParserHook,
      deps: ImportDeps = importDeps(get().ctx),
    ) => {
      const pool = parserPool(deps.limits.parsers);
      let settled = false;
      const step = new ImportWorker(deps, { parserHook: hook }).step().finally(() => {
        settled = true;
      });
      await waitFor(() => pool.busy > 0 || settled, 10_000, 'the parser to take a worker', 10);
      expect(pool.busy).toBe(1);
      await serviceAnswers();
      expect(settled).toBe(false);
      expect(pool.busy).toBe(1);
      if (hook.holdUntilFile) writeFileSync(hook.holdUntilFile, '');
      await step;
      // The next steps close the import.
      const worker = new ImportWorker(deps);
      for (let i = 0; i < 10 && (await worker.step()); i += 1);
      return documentOf(importId);
    };
    const gate = () => join(tmpdir(), `parley-parse-gate-${randomUUID()}`);

    it('a zip-bomb DOCX fails with compression_ratio while the service answers', async () => {
      const bomb = await zipBombDocx(120 * 1024 * 1024);
      const importId = await upload({ name: 'bombe.docx', type: DOCX, content: bomb });
      const hold = gate();
      try {
        expect(await importWhileServing(importId, { holdUntilFile: hold })).toEqual({
          id: expect.any(String),
          kind: 'file',
          name: 'bombe.docx',
          status: 'failed',
          pages: null,
          entries_created: 0,
          error_code: 'compression_ratio',
          error:
            'Ein Teil des Dokuments ist mehr als 100-fach komprimiert (typisch für eine ZIP-Bombe) und wird nicht entpackt.',
        });
      } finally {
        rmSync(hold, { force: true });
      }
    });

    it('a DOCX whose directory lies about its size fails with document_too_large', async () => {
      const bomb = await zipBombDocx(30 * 1024 * 1024, { lie: true });
      const importId = await upload({ name: 'luege.docx', type: DOCX, content: bomb });
      const deps = importDeps(get().ctx);
      const hold = gate();
      try {
        const document = await importWhileServing(
          importId,
          { holdUntilFile: hold },
          {
            ...deps,
            limits: { ...deps.limits, maxCompressionRatio: 100_000 },
          },
        );
        expect(document).toMatchObject({
          status: 'failed',
          error_code: 'document_too_large',
          error: 'Das Dokument ist entpackt größer als 20 MB und wird nicht gelesen.',
        });
      } finally {
        rmSync(hold, { force: true });
      }
    });

    it('a PDF with thousands of pages fails with too_many_pages before its pages are read', async () => {
      const pdf = textPdf(Array.from({ length: 3000 }, (_, i) => `Seite ${i + 1}`));
      const importId = await upload({ name: 'seiten.pdf', type: 'application/pdf', content: pdf });
      const hold = gate();
      try {
        expect(await importWhileServing(importId, { holdUntilFile: hold })).toMatchObject({
          status: 'failed',
          pages: null,
          error_code: 'too_many_pages',
          error:
            'Das PDF hat 3000 Seiten; höchstens 1000 Seiten pro Dokument sind erlaubt. Bitte das Dokument aufteilen.',
        });
      } finally {
        rmSync(hold, { force: true });
      }
    });

    it('a parser that hangs is killed at its deadline; the document fails once and never comes back', async () => {
      const importId = await upload({
        name: 'haengt.md',
        type: 'text/markdown',
        content: '# Hängt\n\nText.',
      });
      const deps = importDeps(get().ctx);
      const document = await importWhileServing(
        importId,
        { spin: true },
        {
          ...deps,
          limits: { ...deps.limits, parserTimeoutMs: 5000 },
        },
      );
      expect(document).toMatchObject({
        status: 'failed',
        error_code: 'parser_timeout',
        error: 'Das Lesen des Dokuments hat länger als 5 s gedauert und wurde abgebrochen.',
      });
      // A later worker (a restarted service) finds nothing left to do with it.
      const worker = new ImportWorker(importDeps(get().ctx));
      for (let i = 0; i < 10 && (await worker.step()); i += 1);
      expect(await documentOf(importId)).toMatchObject({ status: 'failed', error_code: 'parser_timeout' });
      const entries = await get().db.query('SELECT 1 FROM knowledge_entries WHERE tenant_id = $1', [
        tenant.id,
      ]);
      expect(entries).toEqual([]);
    });
  },
  { env: {} },
);
