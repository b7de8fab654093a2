import { readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, folderGraph, loopArrows, sourceFiles } from './graph.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** Relative import targets of a file, resolved to paths under src/ (".js" → ".ts"). */
function importsOf(file: string): string[] {
  return edgesOf(file).map((edge) => edge.target);
}

/** Every relative import of a file, with whether it is erased at build (`import type`). */
function edgesOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const edges = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?'(\.[^']+)'/g),
    ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) =>
    m.length === 3 ? { spec: m[2]!, typeOnly: Boolean(m[1]) } : { spec: m[1]!, typeOnly: false },
  );
  return edges.map(({ spec, typeOnly }) => ({
    target: relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'),
    typeOnly,
  }));
}

/**
 * Floors of the house, lowest first: the shared base (shared/, http/, db/, observability/,
 * coordination/, configuration), the feature modules, the wiring that builds the application
 * (app, context, scheduler), and the entry points (serve, cli, main). Nothing imports a higher floor.
 */
const FLOORS = ['base', 'modules', 'wiring', 'entry'] as const;
function floorOf(path: string): number {
  if (path.startsWith('modules/')) return 1;
  if (['app.ts', 'context.ts', 'scheduler.ts', 'demo.ts'].includes(path)) return 2;
  if (['serve.ts', 'main.ts'].includes(path) || path.startsWith('cli/')) return 3;
  return 0;
}
/** The type of the context names the services it carries; erased at build, it is the one type-only way up. */
const TYPE_ONLY_UPWARDS = new Set(['shared/context.ts']);
const isRepository = (path: string) => /(^|\/)([\w-]+-)?repository\.ts$/.test(path);

/** A statement sent to the database: `db.query(`, `tx.query<…>(`, `queryOne(` or a sql`…` template. */
const SQL_CALL = /\.query(<[^(]*>)?\(|\bqueryOne(<[^(]*>)?\(|\bsql`/;
/** A statement that writes a table (`FOR UPDATE SKIP LOCKED` and `DO UPDATE SET` are no table). */
const WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?!(?:SET|SKIP|OF|NOWAIT)\b)(\w+)\b/g;
/** Tables that more than one module writes, each with its reason. Keep it empty. */
const SHARED_WRITERS: Record<string, string> = {};

const files = sourceFiles(SRC);
const moduleOf = (path: string) => /^modules\/([^/]+)\//.exec(path)?.[1];
const isRoutesFile = (path: string) => /(^|\/)([\w-]+-)?routes\.ts$/.test(path);

/** Imports from one module into another module's files that the predicate picks. */
function importsOfOtherModules(picked: (target: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of files) {
    const from = relative(SRC, file);
    for (const target of importsOf(file)) {
      const a = moduleOf(from);
      const b = moduleOf(target);
      if (a && b && a !== b && picked(target)) found.push(`${from} → ${target}`);
    }
  }
  return found;
}

describe('house order (import graph)', () => {
  it('has no import cycle in src/', () => {
    // The context's type names the services it carries (erased at build): no edge of a cycle.
    const graph = new Map(
      files.map((f) => {
        const from = relative(SRC, f);
        const edges = edgesOf(f).filter((edge) => !(edge.typeOnly && TYPE_ONLY_UPWARDS.has(from)));
        return [from, edges.map((edge) => edge.target)];
      }),
    );
    expect(cycles(graph)).toEqual([]);
  });

  it('no feature folder imports one that imports it back, directly or around a loop', () => {
    const graph = new Map(files.map((f) => [relative(SRC, f), importsOf(f)]));
    // Every arrow that closes a loop between folders of src/modules (see docs/ARCHITECTURE.md, layers).
    expect(loopArrows(folderGraph(graph, moduleOf))).toEqual([]);
  });

  it('nothing imports a higher floor (base ← modules ← wiring ← entry)', () => {
    const offences: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file);
      for (const { target, typeOnly } of edgesOf(file)) {
        if (floorOf(target) <= floorOf(from)) continue;
        if (typeOnly && TYPE_ONLY_UPWARDS.has(from)) continue;
        offences.push(`${from} (${FLOORS[floorOf(from)]}) → ${target} (${FLOORS[floorOf(target)]})`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('a module is reached from outside only through its index.ts (the wiring may register routes files)', () => {
    const wiring = (path: string) => floorOf(path) >= 2;
    const offences: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file);
      if (!moduleOf(from) && !wiring(from)) continue;
      for (const target of importsOf(file)) {
        const owner = moduleOf(target);
        if (!owner || owner === moduleOf(from) || target === `modules/${owner}/index.ts`) continue;
        if (wiring(from) && isRoutesFile(target)) continue;
        offences.push(`${from} → ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('every module declares its surface in index.ts', () => {
    const modules = [...new Set(files.map((f) => moduleOf(relative(SRC, f))).filter(Boolean))];
    const missing = modules.filter(
      (name) => !files.some((f) => relative(SRC, f) === `modules/${name}/index.ts`),
    );
    expect(missing).toEqual([]);
  });

  it('no module imports another module’s repository (only its service or schema)', () => {
    expect(importsOfOtherModules(isRepository)).toEqual([]);
  });

  it('no module imports another module’s routes', () => {
    expect(importsOfOtherModules(isRoutesFile)).toEqual([]);
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

  it('SQL is sent only from repositories (in the modules)', () => {
    const offences = files
      .map((f) => relative(SRC, f))
      .filter((path) => moduleOf(path) && !isRepository(path))
      .filter((path) => SQL_CALL.test(readFileSync(join(SRC, path), 'utf8')));
    expect(offences).toEqual([]);
  });

  it('no route file sends SQL', () => {
    const offences = files
      .map((f) => relative(SRC, f))
      .filter((path) => isRoutesFile(path) && SQL_CALL.test(readFileSync(join(SRC, path), 'utf8')));
    expect(offences).toEqual([]);
  });

  it('every table is written by one module only (its repository)', () => {
    const writers = new Map<string, Set<string>>();
    for (const file of files) {
      const path = relative(SRC, file);
      if (path.startsWith('db/migrations/')) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(WRITE)) {
        const table = match[1]!;
        if (!writers.has(table)) writers.set(table, new Set());
        writers.get(table)!.add(moduleOf(path) ?? path);
      }
    }
    const shared = [...writers]
      .filter(([table, by]) => by.size > 1 && !(table in SHARED_WRITERS))
      .map(([table, by]) => `${table}: ${[...by].sort().join(', ')}`);
    expect(shared).toEqual([]);
    // The guard sees the tables it should: the four that once had two writers among them.
    for (const table of ['messages', 'event_bookings', 'outbox_messages', 'tenants', 'bots', 'contacts']) {
      expect(writers.has(table)).toBe(true);
    }
  });
});
