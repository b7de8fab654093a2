import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, sourceFiles } from './graph.js';

/** The dashboard's source; the generated API types import nothing. */
const SRC = resolve(import.meta.dirname, '../../web/src');
const GENERATED = join(SRC, 'api/schema.d.ts');

/** The file a relative specifier names: as written, or with .ts/.tsx, or a folder's index. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Relative imports and re-exports of a file (static and dynamic), resolved to files under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^;'"]*?\s+from\s+)?'(\.[^']+)'/g),
    ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
  ].map((match) => match[1]!);
  return specs.flatMap((spec) => {
    const target = resolveSpecifier(file, spec);
    return target ? [relative(SRC, target)] : [];
  });
}

describe('the dashboard’s imports', () => {
  const graph = new Map(
    sourceFiles(SRC, /\.tsx?$/, (path) => path === GENERATED).map((file) => [
      relative(SRC, file),
      importsOf(file),
    ]),
  );

  it('reads the source and follows its imports', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('main.tsx')).toContain('app/App.tsx');
  });

  it('has no circle: no file imports a file that imports it back, directly or through others', () => {
    expect(cycles(graph)).toEqual([]);
  });
});
