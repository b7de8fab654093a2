export interface DiffChange {
  type: 'added' | 'removed' | 'unchanged';
  lines: string[];
}

export interface DiffRow {
  left: { text: string; type: 'removed' | 'unchanged' } | null;
  right: { text: string; type: 'added' | 'unchanged' } | null;
}

/**
 * Lays the server's line diff out in two columns: unchanged lines on both sides, a removed block
 * beside the added block that replaced it, everything else against an empty cell.
 */
export function sideBySide(changes: readonly DiffChange[]): DiffRow[] {
  const rows: DiffRow[] = [];
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    if (change.type === 'unchanged') {
      for (const text of change.lines)
        rows.push({ left: { text, type: 'unchanged' }, right: { text, type: 'unchanged' } });
      continue;
    }
    if (change.type === 'removed') {
      const next = changes[i + 1];
      const added = next?.type === 'added' ? next.lines : [];
      if (next?.type === 'added') i++;
      const height = Math.max(change.lines.length, added.length);
      for (let row = 0; row < height; row++) {
        const left = change.lines[row];
        const right = added[row];
        rows.push({
          left: left === undefined ? null : { text: left, type: 'removed' },
          right: right === undefined ? null : { text: right, type: 'added' },
        });
      }
      continue;
    }
    for (const text of change.lines) rows.push({ left: null, right: { text, type: 'added' } });
  }
  return rows;
}
