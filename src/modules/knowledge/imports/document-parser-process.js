// The document parser's own process: PDF, DOCX, HTML, Markdown and text are read, converted
// and split into sections here, never in the service's process, so a hostile document can only
// exhaust this process's heap (--max-old-space-size, set by the pool) or time (the pool kills
// it at its deadline), and no large text ever reaches the service. Limits are checked while
// reading: the page count before any page is read, characters page by page, the unpacked size
// and compression ratio of every ZIP part before and while inflating it, the entry limit as
// sections are produced. The parsing is plain JavaScript, so the process starts under any
// loader (tsx, vitest, node); the service's own TypeScript modules for format detection and
// sections (document-text.ts, sections.ts) are loaded through tsx's API. The pool
// (document-parser.ts) sends one job at a time:
//   { id, path?: string, bytes?: Uint8Array, name, mediaType, title,
//     limits: { maxBytes, maxChars, maxPdfPages, maxUnpackedBytes, maxCompressionRatio, maxEntries },
//     hook?: { spin?: boolean, holdUntilFile?: string } }
// (path: a file this process reads itself) and receives the sections in batches
// { id, sections: [{ title, content, page }] } (each at most about SECTION_BATCH_CHARS), then
// { id, ok: true, result: { format, title, pages, sha256 } } or
// { id, ok: false, error: { code, ...details } } (the German sentences live in import-errors.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { inflateRawSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** Characters of section text per message to the service, so no message is large. */
const SECTION_BATCH_CHARS = 256 * 1024;

/** The service's TypeScript modules this process needs, loaded once through tsx. */
let modules;
async function serviceModules() {
  if (!modules) {
    const { register } = await import('tsx/esm/api');
    register();
    const [text, sections] = await Promise.all([import('./document-text.js'), import('../sections.ts')]);
    modules = { detectFormat: text.detectFormat, ...sections };
  }
  return modules;
}

class Refused extends Error {
  /** @param {string} code @param {Record<string, unknown>} [details] */
  constructor(code, details = {}) {
    super(code);
    this.code = code;
    this.details = details;
  }
}

/** @param {Uint8Array} bytes */
function isUtf8(bytes) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Text of a document: UTF-8 (BOM removed), else Windows-1252, the other common encoding. */
function decodeText(bytes) {
  const text = isUtf8(bytes)
    ? new TextDecoder('utf-8').decode(bytes)
    : new TextDecoder('windows-1252').decode(bytes);
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function checkChars(length, limits) {
  if (length > limits.maxChars) throw new Refused('too_many_chars', { max: limits.maxChars });
}

function toMarkdown(html) {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'form']);
  return turndown.turndown(html).trim();
}

/**
 * The readable part of a web page (Readability drops navigation, footers and ads) as Markdown;
 * when Readability finds no article, the body without scripts, navigation, header and footer.
 */
function htmlMarkdown(html) {
  const { document } = parseHTML(html);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  const article = new Readability(document, { charThreshold: 100 }).parse();
  if (article?.content && article.textContent?.trim()) {
    return { title: article.title?.trim() || pageTitle, markdown: toMarkdown(article.content) };
  }
  const { document: fallback } = parseHTML(html);
  for (const element of fallback.querySelectorAll('script, style, noscript, nav, header, footer, aside')) {
    element.remove();
  }
  return { title: pageTitle, markdown: toMarkdown(fallback.body?.innerHTML ?? '') };
}

async function pdfText(bytes, limits) {
  const { getDocumentProxy } = await import('unpdf');
  let pdf;
  try {
    // pdf.js takes a plain Uint8Array, not a Buffer.
    pdf = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      verbosity: 0,
    });
  } catch (error) {
    if (error?.name === 'PasswordException') throw new Refused('encrypted');
    throw new Refused('damaged', { format: 'PDF' });
  }
  try {
    // The page count is known from the page tree before a single page is read.
    if (pdf.numPages > limits.maxPdfPages) {
      throw new Refused('too_many_pages', { pages: pdf.numPages, max: limits.maxPdfPages });
    }
    const parts = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number += 1) {
      let text;
      try {
        const page = await pdf.getPage(number);
        const content = await page.getTextContent();
        text = content.items
          .filter((item) => item.str != null)
          .map((item) => item.str + (item.hasEOL ? '\n' : ''))
          .join('');
        page.cleanup();
      } catch {
        throw new Refused('damaged', { format: 'PDF' });
      }
      chars += text.length;
      checkChars(chars, limits);
      text = text.replace(/\r\n?/g, '\n').trim();
      // Pages without a single letter or digit hold no text (a scanned page).
      if (/[\p{L}\p{N}]/u.test(text)) parts.push({ text, page: number });
    }
    if (parts.length === 0) throw new Refused('no_text_layer');
    return { title: null, parts, pages: pdf.numPages };
  } finally {
    await pdf.destroy().catch(() => {});
  }
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Checks every part of a ZIP (a DOCX) before it is opened: the sizes its central directory
 * declares, and then the size each part really inflates to — inflating stops at the remaining
 * budget, so a directory that lies about the sizes is caught as well.
 */
function checkZip(bytes, limits) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const damaged = () => new Refused('damaged', { format: 'DOCX' });
  let eocd = -1;
  for (let i = buffer.length - 22; i >= Math.max(0, buffer.length - 22 - 65535); i -= 1) {
    if (buffer.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw damaged();
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i += 1) {
    if (offset + 46 > buffer.length || buffer.readUInt32LE(offset) !== CENTRAL) throw damaged();
    const method = buffer.readUInt16LE(offset + 10);
    const compressed = buffer.readUInt32LE(offset + 20);
    const size = buffer.readUInt32LE(offset + 24);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    const local = buffer.readUInt32LE(offset + 42);
    // ZIP64 sizes (0xFFFFFFFF) do not occur in documents of the sizes accepted here.
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) {
      throw new Refused('unpacked_too_large', { max: limits.maxUnpackedBytes });
    }
    entries.push({ method, compressed, size, local });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  const ratioOf = (size, compressed) => size / Math.max(compressed, 1);
  // Small parts may compress very well without harm; the ratio counts from 1 MB on.
  const RATIO_FLOOR = 1024 * 1024;
  for (const entry of entries) {
    if (entry.size > RATIO_FLOOR && ratioOf(entry.size, entry.compressed) > limits.maxCompressionRatio) {
      throw new Refused('compression_ratio', { max: limits.maxCompressionRatio });
    }
  }
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > limits.maxUnpackedBytes) {
    throw new Refused('unpacked_too_large', { max: limits.maxUnpackedBytes });
  }
  let budget = limits.maxUnpackedBytes;
  for (const entry of entries) {
    const at = entry.local;
    if (at + 30 > buffer.length || buffer.readUInt32LE(at) !== LOCAL) throw damaged();
    const start = at + 30 + buffer.readUInt16LE(at + 26) + buffer.readUInt16LE(at + 28);
    const data = buffer.subarray(start, start + entry.compressed);
    let actual;
    if (entry.method === 0) actual = data.length;
    else if (entry.method === 8) {
      try {
        actual = inflateRawSync(data, { maxOutputLength: Math.max(budget, 1) }).length;
      } catch (error) {
        if (error?.code === 'ERR_BUFFER_TOO_LARGE') {
          throw new Refused('unpacked_too_large', { max: limits.maxUnpackedBytes });
        }
        throw damaged();
      }
    } else throw damaged();
    if (actual > RATIO_FLOOR && ratioOf(actual, entry.compressed) > limits.maxCompressionRatio) {
      throw new Refused('compression_ratio', { max: limits.maxCompressionRatio });
    }
    budget -= actual;
    if (budget < 0) throw new Refused('unpacked_too_large', { max: limits.maxUnpackedBytes });
  }
}

async function docxText(bytes, limits) {
  checkZip(bytes, limits);
  const mammoth = (await import('mammoth')).default;
  let html;
  try {
    html = (
      await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })
    ).value;
  } catch {
    throw new Refused('damaged', { format: 'DOCX' });
  }
  const text = toMarkdown(html);
  checkChars(text.length, limits);
  return { title: null, parts: [{ text, page: null }], pages: null };
}

async function extract(bytes, format, limits) {
  switch (format) {
    case 'pdf':
      return pdfText(bytes, limits);
    case 'docx':
      return docxText(bytes, limits);
    case 'html': {
      const html = decodeText(bytes);
      const { title, markdown } = htmlMarkdown(html);
      checkChars(markdown.length, limits);
      return { title, parts: [{ text: markdown, page: null }], pages: null };
    }
    default: {
      const text = decodeText(bytes);
      checkChars(text.length, limits);
      return { title: null, parts: [{ text, page: null }], pages: null };
    }
  }
}

/**
 * Sections of the document's parts (a PDF's pages, else one part), the entry limit checked as
 * they are produced; sent to the service in batches.
 */
async function sendSections(job, text) {
  const { splitSections, TooManySections, DEFAULT_SECTION_CHARS } = await serviceModules();
  const title = text.title ? text.title.slice(0, 200) : job.title;
  const max = job.limits.maxEntries;
  let count = 0;
  let batch = [];
  let batchChars = 0;
  const flush = () => {
    if (batch.length > 0) process.send({ id: job.id, sections: batch });
    batch = [];
    batchChars = 0;
  };
  for (const part of text.parts) {
    let split;
    try {
      split = splitSections(part.text, part.page ? `${title}, Seite ${part.page}` : title, {
        maxChars: DEFAULT_SECTION_CHARS,
        maxSections: max - count,
      });
    } catch (error) {
      if (error instanceof TooManySections) throw new Refused('too_many_entries', { max });
      throw error;
    }
    for (const section of split) {
      batch.push({ ...section, page: part.page });
      batchChars += section.title.length + section.content.length;
      if (batchChars >= SECTION_BATCH_CHARS) flush();
    }
    count += split.length;
  }
  if (count === 0) throw new Refused('no_text');
  flush();
}

async function parse(job) {
  const bytes = job.path
    ? await readFile(job.path)
    : Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  if (bytes.length > job.limits.maxBytes) throw new Refused('too_large', { max: job.limits.maxBytes });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { detectFormat } = await serviceModules();
  const format = detectFormat(bytes, job.name, job.mediaType);
  if (!format) throw new Refused('unsupported_format');
  job.format = format;
  const text = await extract(bytes, format, job.limits);
  await sendSections(job, text);
  return { format, title: text.title, pages: text.pages, sha256 };
}

process.on('message', async (job) => {
  try {
    // Test hooks: a parser stuck in a loop; a parse held until the test lets it go.
    if (job.hook?.spin) for (;;);
    while (job.hook?.holdUntilFile && !existsSync(job.hook.holdUntilFile)) await sleep(20);
    const result = await parse(job);
    process.send({ id: job.id, ok: true, result });
  } catch (error) {
    if (!(error instanceof Refused)) process.stderr.write(`${error?.stack ?? error}\n`);
    const refused =
      error instanceof Refused
        ? { code: error.code, ...error.details }
        : { code: 'damaged', format: (job.format ?? 'text').toUpperCase() };
    process.send({ id: job.id, ok: false, error: refused });
  }
});
// The service went away: nothing left to parse for.
process.on('disconnect', () => process.exit(0));
