import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DocumentFormat } from './document-text.js';
import { importErrors, type ImportDocumentError } from './errors.js';

/**
 * The pool of document parser processes (document-parser-process.js): format detection, text
 * extraction and sectioning of every imported document run there, outside the service's event
 * loop and heap; the service receives only the sections, in batches of bounded size. A file
 * is handed over by the path of a temporary file the parser reads itself, so its bytes never
 * pass through the service's heap. Each process has its own heap cap (--max-old-space-size)
 * and every job a wall-clock deadline; a process that runs out of memory or past its deadline
 * is killed, the document fails with parser_memory or parser_timeout, and the next job gets a
 * fresh process (otherwise processes stay warm for the next job). One pool per service
 * process, so concurrent imports wait in its queue instead of starting unbounded parsers.
 */

export interface ParserLimits {
  /** Bytes of a document. */
  maxBytes: number;
  /** Characters of extracted text per document. */
  maxChars: number;
  /** Pages of a PDF, checked before any page is read. */
  maxPdfPages: number;
  /** Bytes the parts of a DOCX may unpack to, all together. */
  maxUnpackedBytes: number;
  /** Unpacked size ÷ packed size of one DOCX part (counted from 1 MB of unpacked size on). */
  maxCompressionRatio: number;
  /** Sections (entries) of one document, checked as they are produced. */
  maxEntries: number;
  /** Wall-clock time of one document's extraction, queueing not included. */
  timeoutMs: number;
  /** Heap of a parser process in MB. */
  memoryMb: number;
}

/**
 * Test hooks: `spin` makes the parser loop forever (a parser that hangs); `holdUntilFile` makes
 * it wait until that file exists before it starts (a parse that is still running).
 */
export interface ParserHook {
  spin?: boolean;
  holdUntilFile?: string;
}

/** A document to parse: a file the parser reads itself, or (a fetched page) its bytes. */
export interface ParserInput {
  path?: string;
  bytes?: Buffer;
  /** File name or URL (its extension helps to tell the format). */
  name: string;
  mediaType: string | null;
  /** Title of the sections outside any heading when the document has no title of its own. */
  title: string;
}

export interface ParsedSection {
  title: string;
  content: string;
  /** PDF page number; null for other formats. */
  page: number | null;
}

export interface ParsedDocument {
  format: DocumentFormat;
  /** Title from the document itself (HTML title), when it has one. */
  title: string | null;
  /** Pages of a PDF. */
  pages: number | null;
  /** SHA-256 of the document's bytes (hex). */
  sha256: string;
  sections: ParsedSection[];
}

interface Job {
  id: number;
  input: ParserInput;
  limits: ParserLimits;
  hook?: ParserHook;
  sections: ParsedSection[];
  resolve: (document: ParsedDocument) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  child: ChildProcess | null;
  memoryMb: number;
  job: Job | null;
  stderr: string;
  timer: NodeJS.Timeout | null;
}

interface Reply {
  id: number;
  sections?: ParsedSection[];
  ok?: boolean;
  result?: Omit<ParsedDocument, 'sections'>;
  error?: { code: string; [key: string]: unknown };
}

const SCRIPT = fileURLToPath(new URL('./document-parser-process.js', import.meta.url));

export class ParserPool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(size: number) {
    this.slots = Array.from({ length: size }, () => ({
      child: null,
      memoryMb: 0,
      job: null,
      stderr: '',
      timer: null,
    }));
  }

  /** Documents being parsed right now. */
  get busy(): number {
    return this.slots.filter((slot) => slot.job !== null).length;
  }

  /** Documents waiting for a free parser. */
  get waiting(): number {
    return this.queue.length;
  }

  /** The sections of a document, or an ImportDocumentError saying in words why not. */
  parse(input: ParserInput, limits: ParserLimits, hook?: ParserHook): Promise<ParsedDocument> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, limits, hook, sections: [], resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every parser process; jobs in progress fail. */
  close(): void {
    for (const slot of this.slots) {
      if (slot.job) this.finish(slot, new Error('parser pool closed'));
      slot.child?.kill('SIGKILL');
      slot.child = null;
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      this.start(slot, job);
    }
  }

  private spawn(slot: Slot, memoryMb: number): ChildProcess {
    const child = fork(SCRIPT, [], {
      // No loaders of the service (tsx): the parser is plain JavaScript.
      execArgv: [`--max-old-space-size=${memoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    slot.child = child;
    slot.memoryMb = memoryMb;
    slot.stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-4096);
    });
    child.on('message', (reply: Reply) => {
      if (slot.child !== child || !slot.job || reply.id !== slot.job.id) return;
      const job = slot.job;
      if (reply.sections) job.sections.push(...reply.sections);
      else if (reply.ok) this.finish(slot, null, { ...reply.result!, sections: job.sections });
      else this.finish(slot, refusal(reply.error!, job));
    });
    child.on('exit', () => {
      if (slot.child !== child) return;
      slot.child = null;
      if (!slot.job) return;
      const outOfMemory = /heap out of memory|Allocation failed|out of memory/i.test(slot.stderr);
      const job = slot.job;
      this.finish(
        slot,
        outOfMemory ? importErrors.parserMemory(job.limits.memoryMb) : importErrors.damaged('Dokument'),
      );
    });
    child.on('error', () => {
      // A failed spawn or send ends in 'exit' as well, which fails the job.
    });
    return child;
  }

  private start(slot: Slot, job: Job): void {
    if (slot.child && slot.memoryMb !== job.limits.memoryMb) {
      slot.child.kill('SIGKILL');
      slot.child = null;
    }
    const child = slot.child ?? this.spawn(slot, job.limits.memoryMb);
    slot.job = job;
    setRef(child, true);
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      // Past its deadline: the process is killed, whatever it is doing.
      slot.child = null;
      child.kill('SIGKILL');
      this.finish(slot, importErrors.parserTimeout(job.limits.timeoutMs));
    }, job.limits.timeoutMs);
    const { timeoutMs: _timeout, memoryMb: _memory, ...limits } = job.limits;
    const { path, bytes, name, mediaType, title } = job.input;
    child.send({
      id: job.id,
      path,
      bytes: bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      name,
      mediaType,
      title,
      limits,
      hook: job.hook,
    });
  }

  private finish(slot: Slot, error: unknown, document?: ParsedDocument): void {
    const job = slot.job!;
    slot.job = null;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.child) setRef(slot.child, false);
    if (error) job.reject(error);
    else job.resolve(document!);
    this.dispatch();
  }
}

/** An idle parser process does not keep the service's process alive. */
function setRef(child: ChildProcess, ref: boolean): void {
  const handles = [child, child.channel, child.stderr] as (
    { ref?(): void; unref?(): void } | null | undefined
  )[];
  for (const handle of handles) {
    if (ref) handle?.ref?.();
    else handle?.unref?.();
  }
}

/** The parser's refusal as an error in words. */
function refusal(error: NonNullable<Reply['error']>, job: Job): ImportDocumentError {
  const { limits } = job;
  switch (error.code) {
    case 'unsupported_format':
      return importErrors.unsupportedFormat();
    case 'too_large':
      return importErrors.tooLarge(limits.maxBytes);
    case 'no_text':
      return importErrors.noText();
    case 'too_many_entries':
      return importErrors.tooManyEntries(limits.maxEntries);
    case 'encrypted':
      return importErrors.encrypted();
    case 'no_text_layer':
      return importErrors.noTextLayer();
    case 'too_many_pages':
      return importErrors.tooManyPages(Number(error.pages), limits.maxPdfPages);
    case 'too_many_chars':
      return importErrors.tooManyCharacters(limits.maxChars);
    case 'unpacked_too_large':
      return importErrors.unpackedTooLarge(limits.maxUnpackedBytes);
    case 'compression_ratio':
      return importErrors.compressionRatio(limits.maxCompressionRatio);
    default:
      return importErrors.damaged(typeof error.format === 'string' ? error.format : 'Dokument');
  }
}

let shared: ParserPool | null = null;

/** The service process's one pool (its size is taken from the first caller). */
export function parserPool(size: number): ParserPool {
  shared ??= new ParserPool(size);
  return shared;
}
