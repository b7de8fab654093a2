import type { components } from '../../api/schema';

export type KnowledgeImport = components['schemas']['KnowledgeImport'];
export type KnowledgeImportSummary = components['schemas']['KnowledgeImportSummary'];
type ImportLike = Pick<KnowledgeImportSummary, 'status' | 'documents_total' | 'documents_done'>;

/** Files one import may hold (the API's limit). */
export const MAX_IMPORT_FILES = 10;

/** Whether the job still runs, so its status is polled. */
export function isActive(job: Pick<KnowledgeImportSummary, 'status'>): boolean {
  return job.status === 'queued' || job.status === 'running';
}

/** Share of the job's documents processed, 0–100; a finished job is 100. */
export function progressPercent(job: ImportLike): number {
  if (!isActive(job)) return 100;
  if (job.documents_total === 0) return 0;
  return Math.min(100, Math.round((job.documents_done / job.documents_total) * 100));
}

/**
 * A document's error in the reader's language: the API's German sentence for German readers,
 * for others the sentence of the error code (the API's sentence when the code is unknown).
 */
export function errorText(
  error: KnowledgeImportSummary['errors'][number],
  language: string,
  translate: (key: string) => string | null,
): string {
  if (language.startsWith('de')) return error.message;
  return translate(`knowledgeImport.errors.${error.code}`) ?? error.message;
}

/** Which of the chosen files can be sent: at most MAX_IMPORT_FILES, no empty ones. */
export function selectFiles<T extends { size: number }>(files: T[]): { accepted: T[]; dropped: number } {
  const nonEmpty = files.filter((f) => f.size > 0);
  const accepted = nonEmpty.slice(0, MAX_IMPORT_FILES);
  return { accepted, dropped: files.length - accepted.length };
}

/** A URL the API will take: http or https. */
export function isImportUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
