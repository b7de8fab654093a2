import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ParserPool, type ParserLimits } from '../../src/modules/knowledge/document-parser.js';
import { ImportDocumentError } from '../../src/modules/knowledge/import-errors.js';
import { deflateRepeated, textPdf, zip, zipBombDocx } from './documents.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/knowledge/${name}`, import.meta.url));

const LIMITS: ParserLimits = {
  maxChars: 100_000,
  maxPdfPages: 50,
  maxUnpackedBytes: 5 * 1024 * 1024,
  maxCompressionRatio: 100,
  timeoutMs: 30_000,
  memoryMb: 128,
};

/** The refusal of a document: its code and German sentence. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => {
      throw new Error('the document was not refused');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ImportDocumentError);
  const { code, message } = error as ImportDocumentError;
  return { code, message };
}

describe('document parser processes', () => {
  const pool = new ParserPool(1);
  afterAll(() => pool.close());

  it('reads PDF pages, DOCX and HTML in a process of its own', async () => {
    const pdf = await pool.parse(textPdf(['Erste Seite', 'Zweite Seite']), 'pdf', LIMITS);
    expect(pdf).toMatchObject({
      format: 'pdf',
      pages: 2,
      parts: [{ text: 'Erste Seite', page: 1 }, { page: 2 }],
    });
    const docx = await pool.parse(fixture('werkstatt.docx'), 'docx', LIMITS);
    expect(docx.parts[0]!.text).toMatch(/\S/);
    const html = await pool.parse(
      Buffer.from(
        '<html><head><title>T</title></head><body><main><h1>Kopf</h1><p>Inhalt hier.</p></main></body></html>',
      ),
      'html',
      LIMITS,
    );
    expect(html.title).toBe('T');
    expect(html.parts[0]!.text).toContain('Inhalt hier.');
  });

  it('refuses a zip bomb by its compression ratio before inflating it', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(
      await refusal(pool.parse(bomb, 'docx', { ...LIMITS, maxUnpackedBytes: 100 * 1024 * 1024 })),
    ).toEqual({
      code: 'compression_ratio',
      message:
        'Ein Teil des Dokuments ist mehr als 100-fach komprimiert (typisch für eine ZIP-Bombe) und wird nicht entpackt.',
    });
  });

  it('refuses a DOCX whose declared unpacked size is over the limit', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024);
    expect(await refusal(pool.parse(bomb, 'docx', { ...LIMITS, maxCompressionRatio: 100_000 }))).toEqual({
      code: 'document_too_large',
      message: 'Das Dokument ist entpackt größer als 5 MB und wird nicht gelesen.',
    });
  });

  it('stops inflating at the limit when the central directory lies about the sizes', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024, { lie: true });
    const refused = await refusal(pool.parse(bomb, 'docx', { ...LIMITS, maxCompressionRatio: 100_000 }));
    expect(refused.code).toBe('document_too_large');
    // Under the ratio limit, the real ratio found while inflating refuses it as well.
    expect(
      (await refusal(pool.parse(bomb, 'docx', { ...LIMITS, maxUnpackedBytes: 100 * 1024 * 1024 }))).code,
    ).toBe('compression_ratio');
  });

  it('counts the pages of a PDF before reading them, and its characters page by page', async () => {
    const pages = Array.from({ length: 2000 }, (_, i) => `Seite ${i + 1}`);
    expect(await refusal(pool.parse(textPdf(pages), 'pdf', LIMITS))).toEqual({
      code: 'too_many_pages',
      message:
        'Das PDF hat 2000 Seiten; höchstens 50 Seiten pro Dokument sind erlaubt. Bitte das Dokument aufteilen.',
    });
    const long = Array.from({ length: 40 }, () => 'Text '.repeat(100));
    expect(await refusal(pool.parse(textPdf(long), 'pdf', { ...LIMITS, maxChars: 2000 }))).toEqual({
      code: 'document_too_large',
      message: 'Das Dokument enthält mehr als 2.000 Zeichen Text. Bitte das Dokument aufteilen.',
    });
  });

  it('refuses text over the character limit and a ZIP that is no DOCX', async () => {
    expect((await refusal(pool.parse(Buffer.from('x'.repeat(200_000)), 'markdown', LIMITS))).code).toBe(
      'document_too_large',
    );
    const part = await deflateRepeated('a', 10);
    expect(await refusal(pool.parse(zip([{ ...part, name: 'word/document.xml' }]), 'docx', LIMITS))).toEqual({
      code: 'damaged',
      message: 'Die Datei ist beschädigt oder kein gültiges DOCX.',
    });
  });

  it('kills a parser past its deadline and a parser out of memory; the next document gets a fresh one', async () => {
    expect(
      await refusal(
        pool.parse(Buffer.from('# Titel'), 'markdown', { ...LIMITS, timeoutMs: 500 }, { spin: true }),
      ),
    ).toEqual({
      code: 'parser_timeout',
      message: 'Das Lesen des Dokuments hat länger als 1 s gedauert und wurde abgebrochen.',
    });
    const dom = Buffer.from(`<html><body>${'<div><p>x</p></div>'.repeat(1_500_000)}</body></html>`);
    expect(await refusal(pool.parse(dom, 'html', { ...LIMITS, memoryMb: 64, maxChars: 1e8 }))).toEqual({
      code: 'parser_memory',
      message: 'Das Lesen des Dokuments brauchte mehr als 64 MB Arbeitsspeicher und wurde abgebrochen.',
    });
    expect((await pool.parse(Buffer.from('# Danach\n\nText.'), 'markdown', LIMITS)).parts[0]!.text).toContain(
      'Danach',
    );
  }, 60_000);
});
