import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParserPool, type ParserLimits } from '../../src/modules/knowledge/imports/document-parser.js';
import { ImportDocumentError } from '../../src/modules/knowledge/imports/errors.js';
import { deflateRepeated, textPdf, zip, zipBombDocx } from './documents.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/knowledge/${name}`, import.meta.url));

const LIMITS: ParserLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxEntries: 500,
  maxChars: 100_000,
  maxPdfPages: 50,
  maxUnpackedBytes: 5 * 1024 * 1024,
  maxCompressionRatio: 100,
  timeoutMs: 30_000,
  memoryMb: 128,
};

const NAMES = { pdf: 'd.pdf', docx: 'd.docx', html: 'd.html', markdown: 'd.md' };
/** A document given by its bytes, named so its format is known. */
const doc = (bytes: Buffer, format: keyof typeof NAMES) => ({
  bytes,
  name: NAMES[format],
  mediaType: null,
  title: 'Dokument',
});

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

  it('reads PDF pages, DOCX and HTML in a process of its own and answers their sections', async () => {
    const pdfBytes = textPdf(['Erste Seite', 'Zweite Seite']);
    const pdf = await pool.parse(doc(pdfBytes, 'pdf'), LIMITS);
    expect(pdf).toEqual({
      format: 'pdf',
      title: null,
      pages: 2,
      sha256: createHash('sha256').update(pdfBytes).digest('hex'),
      sections: [
        { title: 'Dokument, Seite 1', content: 'Erste Seite', page: 1 },
        { title: 'Dokument, Seite 2', content: 'Zweite Seite', page: 2 },
      ],
    });
    const docx = await pool.parse(doc(fixture('werkstatt.docx'), 'docx'), LIMITS);
    expect(docx.format).toBe('docx');
    expect(docx.sections.map((s) => s.title)).toContain('Werkstatt › Preise');
    const html = await pool.parse(
      doc(
        Buffer.from(
          '<html><head><title>T</title></head><body><main><h1>Kopf</h1><p>Inhalt hier.</p></main></body></html>',
        ),
        'html',
      ),
      LIMITS,
    );
    expect(html.title).toBe('T');
    expect(html.sections).toEqual([{ title: 'Kopf', content: 'Inhalt hier.', page: null }]);
  });

  it('reads a file by its path and sends many sections in batches', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-parser-test-'));
    try {
      const path = join(directory, 'handbuch');
      const chapters = Array.from({ length: 300 }, (_, i) => `# Kapitel ${i}\n\n${'Satz. '.repeat(300)}`);
      writeFileSync(path, chapters.join('\n\n'));
      const limits = { ...LIMITS, maxChars: 1_000_000 };
      const parsed = await pool.parse(
        { path, name: 'handbuch.md', mediaType: null, title: 'Handbuch' },
        limits,
      );
      expect(parsed.format).toBe('markdown');
      expect(parsed.sections).toHaveLength(300);
      expect(parsed.sections[299]).toEqual({
        title: 'Kapitel 299',
        content: 'Satz. '.repeat(300).trim(),
        page: null,
      });
      // The entry limit is checked as sections are produced.
      expect(
        await refusal(
          pool.parse(
            { path, name: 'handbuch.md', mediaType: null, title: 'Handbuch' },
            {
              ...limits,
              maxEntries: 100,
            },
          ),
        ),
      ).toEqual({
        code: 'too_many_entries',
        message: expect.stringContaining('100'),
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses what is no supported format, too large or without text', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    expect(
      (
        await refusal(
          pool.parse({ bytes: png, name: 'bild.png', mediaType: 'image/png', title: 'x' }, LIMITS),
        )
      ).code,
    ).toBe('unsupported_format');
    expect(
      (
        await refusal(
          pool.parse(doc(Buffer.from('x'.repeat(2000)), 'markdown'), { ...LIMITS, maxBytes: 1024 }),
        )
      ).code,
    ).toBe('too_large');
    expect((await refusal(pool.parse(doc(Buffer.from('# Nur Titel\n\n'), 'markdown'), LIMITS))).code).toBe(
      'no_text',
    );
  });

  it('refuses a zip bomb by its compression ratio before inflating it', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(
      await refusal(pool.parse(doc(bomb, 'docx'), { ...LIMITS, maxUnpackedBytes: 100 * 1024 * 1024 })),
    ).toEqual({
      code: 'compression_ratio',
      message:
        'Ein Teil des Dokuments ist mehr als 100-fach komprimiert (typisch für eine ZIP-Bombe) und wird nicht entpackt.',
    });
  });

  it('refuses a DOCX whose declared unpacked size is over the limit', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024);
    expect(await refusal(pool.parse(doc(bomb, 'docx'), { ...LIMITS, maxCompressionRatio: 100_000 }))).toEqual(
      {
        code: 'document_too_large',
        message: 'Das Dokument ist entpackt größer als 5 MB und wird nicht gelesen.',
      },
    );
  });

  it('stops inflating at the limit when the central directory lies about the sizes', async () => {
    const bomb = await zipBombDocx(60 * 1024 * 1024, { lie: true });
    const refused = await refusal(pool.parse(doc(bomb, 'docx'), { ...LIMITS, maxCompressionRatio: 100_000 }));
    expect(refused.code).toBe('document_too_large');
    // Under the ratio limit, the real ratio found while inflating refuses it as well.
    expect(
      (await refusal(pool.parse(doc(bomb, 'docx'), { ...LIMITS, maxUnpackedBytes: 100 * 1024 * 1024 }))).code,
    ).toBe('compression_ratio');
  });

  it('counts the pages of a PDF before reading them, and its characters page by page', async () => {
    const pages = Array.from({ length: 2000 }, (_, i) => `Seite ${i + 1}`);
    expect(await refusal(pool.parse(doc(textPdf(pages), 'pdf'), LIMITS))).toEqual({
      code: 'too_many_pages',
      message:
        'Das PDF hat 2000 Seiten; höchstens 50 Seiten pro Dokument sind erlaubt. Bitte das Dokument aufteilen.',
    });
    const long = Array.from({ length: 40 }, () => 'Text '.repeat(100));
    expect(await refusal(pool.parse(doc(textPdf(long), 'pdf'), { ...LIMITS, maxChars: 2000 }))).toEqual({
      code: 'document_too_large',
      message: 'Das Dokument enthält mehr als 2.000 Zeichen Text. Bitte das Dokument aufteilen.',
    });
  });

  it('refuses text over the character limit and a ZIP that is no DOCX', async () => {
    expect((await refusal(pool.parse(doc(Buffer.from('x'.repeat(200_000)), 'markdown'), LIMITS))).code).toBe(
      'document_too_large',
    );
    const part = await deflateRepeated('a', 10);
    expect(
      await refusal(pool.parse(doc(zip([{ ...part, name: 'word/document.xml' }]), 'docx'), LIMITS)),
    ).toEqual({
      code: 'damaged',
      message: 'Die Datei ist beschädigt oder kein gültiges DOCX.',
    });
  });

  it('kills a parser past its deadline and a parser out of memory; the next document gets a fresh one', async () => {
    expect(
      await refusal(
        pool.parse(doc(Buffer.from('# Titel'), 'markdown'), { ...LIMITS, timeoutMs: 500 }, { spin: true }),
      ),
    ).toEqual({
      code: 'parser_timeout',
      message: 'Das Lesen des Dokuments hat länger als 1 s gedauert und wurde abgebrochen.',
    });
    const dom = Buffer.from(`<html><body>${'<div><p>x</p></div>'.repeat(1_500_000)}</body></html>`);
    expect(
      await refusal(pool.parse(doc(dom, 'html'), { ...LIMITS, memoryMb: 64, maxChars: 1e8, maxBytes: 1e8 })),
    ).toEqual({
      code: 'parser_memory',
      message: 'Das Lesen des Dokuments brauchte mehr als 64 MB Arbeitsspeicher und wurde abgebrochen.',
    });
    expect((await pool.parse(doc(Buffer.from('# Danach\n\nText.'), 'markdown'), LIMITS)).sections).toEqual([
      { title: 'Danach', content: 'Text.', page: null },
    ]);
  }, 60_000);
});
