import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { importErrors } from './import-errors.js';

/**
 * The text of an imported document: format detection and conversion to Markdown (DOCX via
 * mammoth, HTML via Readability and turndown) or to page texts (PDF via unpdf, pdf.js without
 * native parts). The PDF and DOCX libraries are loaded on first use.
 */

export type DocumentFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

export interface DocumentPart {
  /** Markdown (or plain text) of the part. */
  text: string;
  /** PDF page number; null for other formats. */
  page: number | null;
}

export interface DocumentText {
  format: DocumentFormat;
  /** Title from the document itself (HTML title), when it has one. */
  title: string | null;
  parts: DocumentPart[];
  /** Pages of a PDF. */
  pages: number | null;
}

const EXTENSIONS: Record<string, DocumentFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
};

const MEDIA_TYPES: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};

const startsWith = (bytes: Buffer, text: string) =>
  bytes.subarray(0, text.length).toString('latin1') === text;

/**
 * The format of a document: its bytes decide for PDF and DOCX (a ZIP holding word/document.xml),
 * then the media type, then the file name's extension, then whether the bytes look like HTML or
 * readable text. Null: not a supported format.
 */
export function detectFormat(bytes: Buffer, name: string, mediaType: string | null): DocumentFormat | null {
  if (startsWith(bytes, '%PDF-')) return 'pdf';
  if (startsWith(bytes, 'PK\u0003\u0004')) return bytes.includes('word/document.xml') ? 'docx' : null;
  const extension = /\.([a-z0-9]+)$/i.exec(name.replace(/[?#].*$/, ''))?.[1]?.toLowerCase() ?? '';
  const declared =
    MEDIA_TYPES[(mediaType ?? '').split(';')[0]!.trim().toLowerCase()] ?? EXTENSIONS[extension];
  if (declared === 'pdf' || declared === 'docx') return null;
  if (bytes.includes(0)) return null;
  if (declared) return declared;
  const head = bytes.subarray(0, 1024).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  return isUtf8(bytes) ? 'text' : null;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Text of a document: UTF-8 (BOM removed), else Windows-1252, the other common encoding. */
export function decodeText(bytes: Buffer): string {
  const text = isUtf8(bytes) ? bytes.toString('utf8') : new TextDecoder('windows-1252').decode(bytes);
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export async function extractDocument(bytes: Buffer, format: DocumentFormat): Promise<DocumentText> {
  switch (format) {
    case 'pdf':
      return pdfText(bytes);
    case 'docx':
      return { format, title: null, parts: [{ text: await docxMarkdown(bytes), page: null }], pages: null };
    case 'html': {
      const { title, markdown } = htmlMarkdown(decodeText(bytes));
      return { format, title, parts: [{ text: markdown, page: null }], pages: null };
    }
    default:
      return { format, title: null, parts: [{ text: decodeText(bytes), page: null }], pages: null };
  }
}

async function pdfText(bytes: Buffer): Promise<DocumentText> {
  const { getDocumentProxy, extractText } = await import('unpdf');
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    pages = (await extractText(pdf, { mergePages: false })).text;
    await pdf.destroy();
  } catch (error) {
    if ((error as Error).name === 'PasswordException') throw importErrors.encrypted();
    throw importErrors.damaged('PDF');
  }
  const parts = pages
    .map((text, i) => ({ text: text.replace(/\r\n?/g, '\n').trim(), page: i + 1 }))
    .filter((part) => /[\p{L}\p{N}]/u.test(part.text));
  // Pages without a single letter or digit: a scan without a text layer.
  if (parts.length === 0) throw importErrors.noTextLayer();
  return { format: 'pdf', title: null, parts, pages: pages.length };
}

async function docxMarkdown(bytes: Buffer): Promise<string> {
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes })).value;
  } catch {
    throw importErrors.damaged('DOCX');
  }
  return toMarkdown(html);
}

function toMarkdown(html: string): string {
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
export function htmlMarkdown(html: string): { title: string | null; markdown: string } {
  const { document } = parseHTML(html);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  const article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse();
  if (article?.content && article.textContent?.trim()) {
    return { title: article.title?.trim() || pageTitle, markdown: toMarkdown(article.content) };
  }
  const { document: fallback } = parseHTML(html);
  for (const element of fallback.querySelectorAll('script, style, noscript, nav, header, footer, aside')) {
    element.remove();
  }
  return { title: pageTitle, markdown: toMarkdown(fallback.body?.innerHTML ?? '') };
}
