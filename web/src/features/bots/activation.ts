import { ApiError } from '../../api/client';

export interface RedBlock {
  blockId: string;
  blockName: string;
  detail?: string;
}

/** The red blocks named by a refused activation (409 with details.red_blocks), or null. */
export function refusedActivation(error: unknown): RedBlock[] | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const details = (error.body as { details?: { red_blocks?: unknown } } | null)?.details;
  const blocks = Array.isArray(details?.red_blocks) ? details.red_blocks : [];
  return blocks
    .filter(
      (b): b is RedBlock =>
        typeof b === 'object' && b !== null && typeof (b as RedBlock).blockId === 'string',
    )
    .map((b) => ({ blockId: b.blockId, blockName: b.blockName, detail: b.detail }));
}
