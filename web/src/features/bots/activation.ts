import { ApiError } from '../../api/client';
import type { BlockCheck } from '../flow/reasons';

export interface RedBlock {
  blockId: string;
  blockName: string;
  /** The block's pre-flight result, to explain the refusal in the user's language. */
  check: BlockCheck | null;
}

function isCheck(value: Record<string, unknown>): boolean {
  const routing = value.routing as { ok?: unknown } | undefined;
  const targets = value.targets as { issues?: unknown } | undefined;
  return (
    typeof value.status === 'string' &&
    typeof value.itemCount === 'number' &&
    typeof routing?.ok === 'boolean' &&
    typeof value.conditions === 'object' &&
    Array.isArray(targets?.issues)
  );
}

/** The red blocks named by a refused activation (409 with details.red_blocks), or null. */
export function refusedActivation(error: unknown): RedBlock[] | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const details = (error.body as { details?: { red_blocks?: unknown } } | null)?.details;
  const blocks = Array.isArray(details?.red_blocks) ? (details.red_blocks as unknown[]) : [];
  return blocks
    .filter(
      (b): b is Record<string, unknown> & { blockId: string; blockName: string } =>
        typeof b === 'object' &&
        b !== null &&
        typeof (b as { blockId?: unknown }).blockId === 'string' &&
        typeof (b as { blockName?: unknown }).blockName === 'string',
    )
    .map((b) => ({
      blockId: b.blockId,
      blockName: b.blockName,
      check: isCheck(b) ? (b as unknown as BlockCheck) : null,
    }));
}
