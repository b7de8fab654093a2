import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, ErrorCode, badRequest } from './errors.js';

/**
 * Multipart uploads streamed to temporary files (@fastify/multipart parses, nothing is held in
 * memory but the chunk in transit), and read back from them in chunks as well. Bounded per file, per request and per tenant in flight
 * (bytes received and not yet stored, on this instance); over a bound the request is refused
 * (413, or 429 with Retry-After for the tenant's bound) and its files are deleted. A body that
 * is not well-formed multipart is a 400, never a 500.
 */

export interface UploadLimits {
  maxFileBytes: number;
  maxRequestBytes: number;
  maxTenantBytes: number;
  maxFiles: number;
}

export interface ReceivedFile {
  field: string;
  name: string;
  mediaType: string | null;
  size: number;
  sha256: string;
  /** The bytes, read from the temporary file in chunks of at most 1 MB. */
  chunks(): AsyncIterable<Buffer>;
}

export interface ReceivedUpload {
  files: ReceivedFile[];
  fields: Record<string, string>;
  /** Deletes the temporary files and gives the tenant's bytes back; call once done. */
  dispose(): Promise<void>;
}

/** Upload bytes in flight per tenant on this instance. */
export class UploadBudget {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly maxBytes: number) {}

  /** Takes bytes from the tenant's budget; false (nothing taken) when they do not fit. */
  take(tenantId: string, bytes: number): boolean {
    const used = this.inFlight.get(tenantId) ?? 0;
    if (used + bytes > this.maxBytes) return false;
    this.inFlight.set(tenantId, used + bytes);
    return true;
  }

  give(tenantId: string, bytes: number): void {
    const left = (this.inFlight.get(tenantId) ?? 0) - bytes;
    if (left > 0) this.inFlight.set(tenantId, left);
    else this.inFlight.delete(tenantId);
  }

  used(tenantId: string): number {
    return this.inFlight.get(tenantId) ?? 0;
  }
}

const RETRY_AFTER_SECONDS = 10;
const READ_CHUNK_BYTES = 1024 * 1024;
const megabytes = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export const uploadErrors = {
  fileTooLarge: (max: number) =>
    new AppError(413, ErrorCode.payloadTooLarge, `A file is larger than ${megabytes(max)} MB`, {
      details: { code: 'file_too_large', field: 'files', max_bytes: max },
    }),
  requestTooLarge: (max: number) =>
    new AppError(
      413,
      ErrorCode.payloadTooLarge,
      `The files of one request are larger than ${megabytes(max)} MB together`,
      { details: { code: 'upload_too_large', max_request_bytes: max } },
    ),
  tenantBusy: (max: number) =>
    new AppError(
      429,
      ErrorCode.rateLimited,
      `Uploads of this tenant in progress exceed ${megabytes(max)} MB; retry when they are stored`,
      {
        details: { code: 'uploads_busy', max_tenant_bytes: max },
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      },
    ),
  malformed: (reason: string) =>
    badRequest(`Malformed multipart body: ${reason}`, { code: 'multipart_malformed' }),
};

/**
 * Reads a multipart body: files of the named file fields to temporary files, the named text
 * fields as strings. Anything else, or a broken body, refuses the request with nothing kept.
 */
export async function receiveMultipart(
  request: FastifyRequest,
  tenantId: string,
  budget: UploadBudget,
  limits: UploadLimits,
  allowed: { fileFields: Set<string>; textFields: Set<string> },
): Promise<ReceivedUpload> {
  let directory: string | null = null;
  let taken = 0;
  const files: ReceivedFile[] = [];
  const fields: Record<string, string> = {};
  const dispose = async () => {
    budget.give(tenantId, taken);
    taken = 0;
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = null;
  };
  let total = 0;
  try {
    const parts = (() => {
      try {
        return request.parts();
      } catch (error) {
        throw parserError(error, limits);
      }
    })();
    for await (const part of nextParts(parts, limits)) {
      if (part.type === 'file') {
        if (!allowed.fileFields.has(part.fieldname)) {
          part.file.resume();
          throw badRequest(`Unknown file field '${part.fieldname}'; use '${[...allowed.fileFields][0]}'`, {
            code: 'field_unknown',
            field: part.fieldname,
          });
        }
        directory ??= await mkdtemp(join(tmpdir(), 'parley-upload-'));
        const path = join(directory, String(files.length));
        const hash = createHash('sha256');
        let size = 0;
        const meter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            size += chunk.length;
            total += chunk.length;
            if (total > limits.maxRequestBytes)
              return done(uploadErrors.requestTooLarge(limits.maxRequestBytes));
            if (!budget.take(tenantId, chunk.length))
              return done(uploadErrors.tenantBusy(limits.maxTenantBytes));
            taken += chunk.length;
            hash.update(chunk);
            done(null, chunk);
          },
        });
        try {
          await pipeline(part.file, meter, createWriteStream(path));
        } catch (error) {
          throw parserError(error, limits);
        }
        if (part.file.truncated) throw uploadErrors.fileTooLarge(limits.maxFileBytes);
        files.push({
          field: part.fieldname,
          name: part.filename,
          mediaType: part.mimetype || null,
          size,
          sha256: hash.digest('hex'),
          chunks: () => createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }),
        });
      } else if (allowed.textFields.has(part.fieldname)) {
        fields[part.fieldname] = String(part.value ?? '');
      } else {
        throw badRequest(`Unknown field '${part.fieldname}' in body`, {
          code: 'field_unknown',
          field: part.fieldname,
        });
      }
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { files, fields, dispose };
}

/** The parts of a body; an error of the parser becomes a 4xx. */
async function* nextParts<T>(parts: AsyncIterable<T>, limits: UploadLimits): AsyncGenerator<T> {
  const iterator = parts[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw parserError(error, limits);
    }
    if (next.done) return;
    yield next.value;
  }
}

/** Errors of @fastify/multipart and busboy as client errors; anything else as it is. */
function parserError(error: unknown, limits: UploadLimits): unknown {
  if (error instanceof AppError) return error;
  const { code, syscall, message } = error as { code?: string; syscall?: string; message?: string };
  if (syscall) return error;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return uploadErrors.fileTooLarge(limits.maxFileBytes);
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return badRequest(`A request holds at most ${limits.maxFiles} files and the documented fields`, {
        code: 'import_too_many',
        field: 'files',
        limit: limits.maxFiles,
      });
    default:
      return uploadErrors.malformed(String(message ?? 'unreadable').slice(0, 200));
  }
}
