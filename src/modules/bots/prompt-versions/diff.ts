import { createTwoFilesPatch, diffLines } from 'diff';

export interface LineChange {
  type: 'added' | 'removed' | 'unchanged';
  /** The lines of this run, without their line ends. */
  lines: string[];
}

export interface PromptDiff {
  /** Unified diff, as `diff -u` and code review tools read it. */
  patch: string;
  changes: LineChange[];
  stats: { added: number; removed: number; unchanged: number };
}

function splitLines(value: string): string[] {
  const lines = value.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The text as lines that each end in `\n`: line ends (`\r\n` or `\n`) and whether the last line
 * has one do not count as a change, so appending a line shows only that line as added.
 */
function normalise(value: string): string {
  const text = value.replace(/\r\n/g, '\n');
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** Line diff from `oldText` (labelled oldName) to `newText` (labelled newName). */
export function diffPrompts(oldName: string, oldText: string, newName: string, newText: string): PromptDiff {
  const before = normalise(oldText);
  const after = normalise(newText);
  const changes: LineChange[] = diffLines(before, after).map((part) => ({
    type: part.added ? 'added' : part.removed ? 'removed' : 'unchanged',
    lines: splitLines(part.value),
  }));
  const count = (type: LineChange['type']) =>
    changes.filter((c) => c.type === type).reduce((sum, c) => sum + c.lines.length, 0);
  return {
    patch: createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3 }),
    changes,
    stats: { added: count('added'), removed: count('removed'), unchanged: count('unchanged') },
  };
}
