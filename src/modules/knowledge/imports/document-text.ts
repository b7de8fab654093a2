/**
 * Format detection of an imported document. It runs in the parser process (loaded there with
 * sections.ts), like the conversion to Markdown (DOCX via mammoth, HTML via Readability and
 * turndown) or to page texts (PDF via unpdf, pdf.js without native parts): see
 * document-parser.ts and document-parser-process.js. Never in the service's process.
 */

export type DocumentFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

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
