import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative import targets of a file, resolved to paths under src/ (".js" → ".ts"). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return targets.map((t) => relative(SRC, resolve(dirname(file), t)).replace(/\.js$/, '.ts'));
}

const files = sourceFiles(SRC);
const moduleOf = (path: string) => /^modules\/([^/]+)\//.exec(path)?.[1];
const isRoutesFile = (path: string) => /(^|\/)([\w-]+-)?routes\.ts$/.test(path);

describe('house order (import graph)', () => {
  it('no module imports another module’s routes', () => {
    const offences: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file);
      for (const target of importsOf(file)) {
        const a = moduleOf(from);
        const b = moduleOf(target);
        if (a && b && a !== b && isRoutesFile(target)) offences.push(`${from} → ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('app.ts registers every module’s top-level routes itself', () => {
    const app = readFileSync(join(SRC, 'app.ts'), 'utf8');
    const imported = new Set(files.flatMap((f) => importsOf(f)));
    const missing: string[] = [];
    for (const file of files) {
      const path = relative(SRC, file);
      if (!moduleOf(path) || !isRoutesFile(path)) continue;
      // A routes file is registered by app.ts or by a routes file of its own module.
      const plugins = [...readFileSync(file, 'utf8').matchAll(/export const (\w+Routes)\b/g)].map(
        (m) => m[1]!,
      );
      const registeredInModule = files.some(
        (other) =>
          other !== file &&
          moduleOf(relative(SRC, other)) === moduleOf(path) &&
          importsOf(other).includes(path),
      );
      for (const plugin of plugins) {
        if (!registeredInModule && !app.includes(`register(${plugin}`)) missing.push(`${path}: ${plugin}`);
      }
      expect(imported.has(path) || registeredInModule).toBe(true);
    }
    expect(missing).toEqual([]);
  });

  it('isUuid comes from src/shared, not from a module', () => {
    const offences = files
      .filter((f) =>
        /import \{[^}]*\bisUuid\b[^}]*\} from '(?![^']*shared\/ids\.js')/.test(readFileSync(f, 'utf8')),
      )
      .map((f) => relative(SRC, f));
    expect(offences).toEqual([]);
  });

  it('background jobs of the modules are started by the scheduler only', () => {
    const offences = files
      .filter((f) => !f.endsWith('scheduler.ts'))
      .filter(
        (f) =>
          /new Scheduler\(/.test(readFileSync(f, 'utf8')) ||
          (moduleOf(relative(SRC, f)) && /setInterval\(/.test(readFileSync(f, 'utf8'))),
      )
      .map((f) => relative(SRC, f));
    expect(offences).toEqual([]);
  });
});
