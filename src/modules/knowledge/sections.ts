import { chunkText } from '../../shared/text.js';

/**
 * Pure splitting of an imported document into knowledge entries. A document is Markdown (files
 * and converted DOCX and HTML) or plain page text (PDF). Every heading starts a section, so an
 * entry never crosses a heading, least of all a top-level one; a long section is split at
 * paragraph boundaries. The heading path ("Handbuch › Installation › Voraussetzungen") becomes
 * the entry's title.
 */

export interface Section {
  title: string;
  content: string;
}

export interface SectionOptions {
  /** Upper bound of an entry's content in characters; longer sections are split. */
  maxChars: number;
  /** Sections at most: splitting stops with TooManySections at the first one more. */
  maxSections?: number;
}

/** More sections than SectionOptions.maxSections: found while splitting, not afterwards. */
export class TooManySections extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} sections`);
    this.name = 'TooManySections';
  }
}

/** Large enough to keep a section together, small enough to cite one place of a document. */
export const DEFAULT_SECTION_CHARS = 4000;
export const TITLE_SEPARATOR = ' › ';
const MAX_TITLE = 300;

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface RawSection {
  path: string[];
  lines: string[];
}

/** Heading text without Markdown markup: links keep their text, emphasis and code marks go. */
export function plainHeading(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sections of a Markdown text in order, each with the path of headings above it. */
function rawSections(markdown: string): RawSection[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const sections: RawSection[] = [{ path: [], lines: [] }];
  const stack: { level: number; title: string }[] = [];
  let fence: string | null = null;
  const startSection = (level: number, title: string) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, title });
    sections.push({ path: stack.map((h) => h.title), lines: [] });
  };
  for (const line of lines) {
    const current = sections[sections.length - 1]!;
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence)) fence = null;
      current.lines.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      current.lines.push(line);
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx && plainHeading(atx[2]!)) {
      startSection(atx[1]!.length, plainHeading(atx[2]!));
      continue;
    }
    // Setext headings: a paragraph line underlined with === (level 1) or --- (level 2).
    const previous = current.lines[current.lines.length - 1];
    if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && previous !== undefined && previous.trim() !== '') {
      const paragraphStart =
        current.lines.length < 2 || current.lines[current.lines.length - 2]!.trim() === '';
      if (paragraphStart) {
        current.lines.pop();
        startSection(line.trim().startsWith('=') ? 1 : 2, plainHeading(previous));
        continue;
      }
    }
    current.lines.push(line);
  }
  return sections;
}

/** Paragraphs of a text: blocks between blank lines, code fences kept whole. */
export function paragraphsOf(text: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const paragraph = current.join('\n').trim();
    if (paragraph) paragraphs.push(paragraph);
    current = [];
  };
  for (const line of text.split('\n')) {
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      current.push(line);
      if (fenceMatch && fenceMatch[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (fenceMatch) fence = fenceMatch[1]!;
    if (line.trim() === '' && fence === null) flush();
    else current.push(line);
  }
  flush();
  return paragraphs;
}

/**
 * Packs paragraphs into parts of at most maxChars, cutting only between paragraphs; a single
 * paragraph longer than that is cut at sentence, then word boundaries.
 */
export function packParagraphs(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let current = '';
  for (const paragraph of paragraphsOf(text)) {
    const pieces =
      paragraph.length > maxChars ? chunkText(paragraph, { maxChars, overlapChars: 0 }) : [paragraph];
    for (const piece of pieces) {
      if (current && current.length + 2 + piece.length > maxChars) {
        parts.push(current);
        current = '';
      }
      current = current ? `${current}\n\n${piece}` : piece;
    }
  }
  if (current) parts.push(current);
  return parts;
}

/** An entry title of at most 300 characters; a long path keeps its last (most specific) part. */
export function entryTitle(path: string[], fallback: string): string {
  const parts = path.length > 0 ? path : [fallback];
  let title = parts.join(TITLE_SEPARATOR);
  if (title.length > MAX_TITLE) title = `…${title.slice(title.length - MAX_TITLE + 1)}`;
  return title.trim() || fallback.slice(0, MAX_TITLE);
}

/**
 * The entries of a Markdown document: one per section with text (a heading directly followed
 * by a sub-heading lives on in the sub-heading's path), long sections split into numbered
 * parts ("Titel (2/3)"). Text before the first heading is titled with the document's title.
 */
export function splitSections(
  markdown: string,
  documentTitle: string,
  options: SectionOptions = { maxChars: DEFAULT_SECTION_CHARS },
): Section[] {
  const sections: Section[] = [];
  const max = options.maxSections ?? Infinity;
  for (const raw of rawSections(markdown)) {
    const body = raw.lines.join('\n').trim();
    if (!body) continue;
    const title = entryTitle(raw.path, documentTitle);
    const parts = packParagraphs(body, options.maxChars);
    if (sections.length + parts.length > max) throw new TooManySections(max);
    parts.forEach((content, i) => {
      const suffix = parts.length > 1 ? ` (${i + 1}/${parts.length})` : '';
      sections.push({ title: `${title.slice(0, MAX_TITLE - suffix.length)}${suffix}`, content });
    });
  }
  return sections;
}
