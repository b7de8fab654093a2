import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../../db/database.js';
import { AppError } from '../../../http/errors.js';
import {
  parserPool,
  type ParsedSection,
  type ParserHook,
  type ParserInput,
  type ParserLimits,
} from './document-parser.js';
import { ImportDocumentError, importErrors } from './errors.js';
import { RobotsCache, guardedGet, importUrl, readSitemap, type FetchLimits } from './fetch.js';
import * as imports from './repository.js';
import type { DocumentRow, ImportRow } from './repository.js';
import { fileName, type ImportDeps } from './service.js';
import * as repo from '../repository.js';
import type { EntryRow, EntryScope, EntrySource } from '../repository.js';
import {
  afterEmbedding,
  embedChunks,
  holdScope,
  prepareEntry,
  writeIndex,
  type PreparedEntry,
} from '../service.js';

/**
 * The import worker: each step claims one open import and does one piece of it — read its
 * sitemap, import one document, or close it — in one transaction that also gives the import
 * back. A document's entries are all written or none; a worker that stops mid-step leaves the
 * import to the next worker once its lease runs out.
 */

/** Nested sitemaps a sitemap step may read, plus robots.txt and the sitemap itself. */
const LEASE_FETCHES = 24;
/**
 * Starts on one document at most. A document whose parser runs out of memory or time fails at
 * once (the parser runs in a process of its own); one that was started and never finished
 * ended the service itself, and is failed in words instead of being taken up again.
 */
export const MAX_DOCUMENT_ATTEMPTS = 1;

export interface ImportWorkerOptions {
  /** Test hook of the parser (a parser that hangs). */
  parserHook?: ParserHook;
}

interface ImportedEntry {
  prepared: PreparedEntry;
  embedded: Awaited<ReturnType<typeof embedChunks>>;
}

type Outcome =
  | {
      status: 'entries';
      source: Omit<EntrySource, 'page' | 'name'>;
      pages: number | null;
      entries: ImportedEntry[];
    }
  | { status: 'skipped'; pages: number | null }
  | { status: 'failed'; pages: number | null; error: ImportDocumentError };

export class ImportWorker {
  /** robots.txt rules per import, so the pages of one sitemap do not fetch it again each. */
  private readonly robots = new LRUCache<string, RobotsCache>({ max: 50, ttl: 10 * 60_000 });

  constructor(
    private readonly deps: ImportDeps,
    private readonly options: ImportWorkerOptions = {},
  ) {}

  private get parserLimits(): ParserLimits {
    const limits = this.deps.limits;
    return {
      maxBytes: limits.maxBytes,
      maxEntries: limits.maxEntries,
      maxChars: limits.maxChars,
      maxPdfPages: limits.maxPdfPages,
      maxUnpackedBytes: limits.maxUnpackedBytes,
      maxCompressionRatio: limits.maxCompressionRatio,
      timeoutMs: limits.parserTimeoutMs,
      memoryMb: limits.parserMemoryMb,
    };
  }

  private get limits(): FetchLimits {
    const { timeoutMs, maxBytes, allowPrivateTargets } = this.deps.limits;
    return { timeoutMs, maxBytes, allowPrivate: allowPrivateTargets };
  }

  /** One step of one import; true when a step was done (more work may be waiting). */
  async step(): Promise<boolean> {
    const token = randomUUID();
    const leaseMs = LEASE_FETCHES * this.deps.limits.timeoutMs + this.deps.limits.parserTimeoutMs + 60_000;
    const job = await imports.claimImport(this.deps.db, token, leaseMs);
    if (!job) return false;
    if (job.sitemap_url && job.sitemap_read === null) {
      await this.readSitemapOf(job, token);
      return true;
    }
    const document = await imports.nextDocument(this.deps.db, job.id);
    if (!document) {
      await this.underClaim(job, token, (tx) => imports.finishImport(tx, job.id));
      this.robots.delete(job.id);
      return true;
    }
    // Counted before the work, so a document whose processing ends the worker every time
    // does not come back forever.
    const attempts = await imports.startDocument(this.deps.db, document.id);
    const outcome: Outcome =
      attempts > MAX_DOCUMENT_ATTEMPTS
        ? { status: 'failed', pages: null, error: importErrors.attemptsExhausted() }
        : await this.importDocument(job, document);
    await this.store(job, token, document, outcome);
    return true;
  }

  private robotsOf(job: ImportRow): RobotsCache {
    let robots = this.robots.get(job.id);
    if (!robots) {
      robots = new RobotsCache(this.limits);
      this.robots.set(job.id, robots);
    }
    return robots;
  }

  /** Runs fn in a transaction while this worker's claim holds, then gives the import back. */
  private async underClaim(
    job: ImportRow,
    token: string,
    fn: (tx: Queryable) => Promise<void>,
  ): Promise<boolean> {
    return this.deps.db.transaction(async (tx) => {
      // Taken over by another worker after the lease ran out: that worker redoes the step.
      if (!(await imports.holdClaim(tx, job.id, token))) return false;
      await fn(tx);
      await imports.releaseClaim(tx, job.id);
      return true;
    });
  }

  private async readSitemapOf(job: ImportRow, token: string): Promise<void> {
    const maxPages = this.deps.limits.maxPages;
    let urls: string[] = [];
    let note: ImportDocumentError | null = null;
    try {
      const read = await readSitemap(job.sitemap_url!, this.limits, this.robotsOf(job), maxPages);
      urls = read.urls;
      if (read.listed > maxPages) note = importErrors.pageLimit(read.listed, maxPages);
    } catch (error) {
      if (!(error instanceof ImportDocumentError)) throw error;
      note = error;
    }
    await this.underClaim(job, token, async (tx) => {
      await imports.insertDocuments(
        tx,
        job.tenant_id,
        job.id,
        urls.map((url) => ({ kind: 'page', name: url, mediaType: null, sha256: null })),
      );
      await imports.recordSitemap(tx, job.id, {
        errorCode: note?.code ?? null,
        error: note?.message ?? null,
      });
    });
  }

  /**
   * Reads, converts and splits one document; nothing is written yet. The parser process does
   * the reading, converting and splitting; here the sections become entries, one at a time
   * with a turn of the event loop between them.
   */
  private async importDocument(job: ImportRow, document: DocumentRow): Promise<Outcome> {
    const scope: EntryScope = { botId: job.bot_id };
    let pages: number | null = null;
    let directory: string | null = null;
    try {
      let input: ParserInput;
      let sourceKey: string;
      let sourceUrl: string | null = null;
      let name: string | null = null;
      const title = documentTitle(document);
      if (document.kind === 'file') {
        sourceKey = `sha256:${document.sha256}`;
        name = document.name;
        // The same file again: nothing to do, before any parsing.
        const stored = await repo.findSourceHash(this.deps.db, job.tenant_id, scope, sourceKey);
        if (stored === document.sha256) return { status: 'skipped', pages: null };
        // Part by part into a temporary file, which the parser reads itself.
        directory = await mkdtemp(join(tmpdir(), 'parley-import-'));
        const path = join(directory, 'document');
        await pipeline(imports.readDocumentParts(this.deps.db, document.id), createWriteStream(path));
        input = { path, name: document.name, mediaType: document.media_type, title };
      } else {
        sourceUrl = importUrl(document.name).toString();
        sourceKey = sourceUrl;
        await this.robotsOf(job).check(sourceUrl);
        const fetched = await guardedGet(sourceUrl, this.limits);
        input = { bytes: fetched.body, name: document.name, mediaType: fetched.mediaType, title };
      }
      // Outside the service's event loop and heap, with the pool's limits and deadline.
      const parsed = await parserPool(this.deps.limits.parsers).parse(
        input,
        this.parserLimits,
        this.options.parserHook,
      );
      pages = parsed.pages;
      const source = { key: sourceKey, hash: document.sha256 ?? parsed.sha256 };
      const entries = await this.entriesOf(parsed.sections, { ...source, name, page: null }, sourceUrl);
      return { status: 'entries', source, pages, entries: await this.embedded(entries) };
    } catch (error) {
      if (error instanceof ImportDocumentError) return { status: 'failed', pages, error };
      throw error;
    } finally {
      if (directory) await rm(directory, { recursive: true, force: true });
    }
  }

  private async entriesOf(
    sections: ParsedSection[],
    source: EntrySource,
    sourceUrl: string | null,
  ): Promise<PreparedEntry[]> {
    const entries: PreparedEntry[] = [];
    for (const section of sections) {
      // Language detection, chunking and words take a few milliseconds per entry: other
      // requests get their turn in between.
      await nextTurn();
      try {
        const prepared = prepareEntry(
          { title: section.title, content: section.content, source_url: sourceUrl },
          this.deps.maxEntryBytes,
        );
        prepared.write.source = { ...source, page: section.page };
        entries.push(prepared);
      } catch (error) {
        if (error instanceof AppError) throw importErrors.invalidEntry(section.title, error.message);
        throw error;
      }
    }
    return entries;
  }

  /** Chunk vectors, before the transaction (no lock waits on the embeddings endpoint). */
  private async embedded(entries: PreparedEntry[]): Promise<ImportedEntry[]> {
    const result: ImportedEntry[] = [];
    for (const prepared of entries) {
      result.push({
        prepared,
        embedded: await embedChunks(this.deps, prepared.write.title, prepared.chunks),
      });
    }
    return result;
  }

  /**
   * Writes a document's outcome in one transaction: its entries (replacing those of an earlier
   * import of the same source, or nothing when that import had the same bytes), its status,
   * and the release of the import.
   */
  private async store(job: ImportRow, token: string, document: DocumentRow, outcome: Outcome): Promise<void> {
    const scope: EntryScope = { botId: job.bot_id };
    const finish = (tx: Queryable, status: 'done' | 'skipped' | 'failed', entriesCreated = 0) =>
      imports.finishDocument(tx, document.id, {
        status,
        entriesCreated,
        pages: outcome.pages,
        errorCode: outcome.status === 'failed' ? outcome.error.code : null,
        error: outcome.status === 'failed' ? outcome.error.message : null,
      });
    const held = await this.underClaim(job, token, async (tx) => {
      if (outcome.status !== 'entries') return finish(tx, outcome.status);
      await holdScope(tx, job.tenant_id, scope);
      // Imports of the same source into one scope wait for each other instead of both writing.
      await repo.holdSource(tx, job.tenant_id, scope, outcome.source.key);
      const stored = await repo.findSourceHash(tx, job.tenant_id, scope, outcome.source.key);
      if (stored === outcome.source.hash) return finish(tx, 'skipped');
      await repo.deleteSourceEntries(tx, job.tenant_id, scope, outcome.source.key);
      const rows: EntryRow[] = [];
      for (const { prepared, embedded } of outcome.entries) {
        const entry = await repo.insertEntry(tx, job.tenant_id, scope, {
          ...prepared.write,
          vectorsMissing: embedded.vectorsMissing,
          createdBy: job.created_by,
        });
        rows.push(await writeIndex(tx, job.tenant_id, entry, prepared, embedded.chunks));
      }
      await repo.setOnboardingStep(tx, job.tenant_id, 'entry_created', true);
      await finish(tx, 'done', rows.length);
    });
    // This worker got through the document but lost its lease: the document did not end a
    // worker, so the attempt does not count against it when the next worker redoes it.
    if (!held) await imports.forgetAttempt(this.deps.db, document.id);
    if (outcome.status === 'entries') {
      afterEmbedding(
        this.deps,
        outcome.entries.map((e) => e.embedded),
      );
    }
  }
}

/**
 * Title of entries outside any heading when the document has none of its own (an HTML title):
 * the file or URL name.
 */
function documentTitle(document: DocumentRow): string {
  if (document.kind === 'file') return fileName(document.name).replace(/\.[a-z0-9]{1,8}$/i, '');
  const url = new URL(document.name);
  const last = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '');
  return (last.replace(/\.[a-z0-9]{1,8}$/i, '') || url.hostname).slice(0, 200);
}
