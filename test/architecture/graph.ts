import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below dir whose name matches, skipping the relative paths in `skip`. */
export function sourceFiles(
  dir: string,
  name = /\.ts$/,
  skip: (path: string) => boolean = () => false,
): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path, name, skip);
    return name.test(entry.name) && !skip(path) ? [path] : [];
  });
}

/** Strongly connected components of a graph with more than one node (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/**
 * The graph of folders: an arrow from one folder to another when any file of the first
 * imports a file of the second (`folderOf` names a file's folder, or undefined outside them).
 */
export function folderGraph(
  files: Map<string, string[]>,
  folderOf: (path: string) => string | undefined,
): Map<string, string[]> {
  const arrows = new Map<string, Set<string>>();
  for (const [from, targets] of files) {
    const a = folderOf(from);
    if (!a) continue;
    if (!arrows.has(a)) arrows.set(a, new Set());
    for (const target of targets) {
      const b = folderOf(target);
      if (b && b !== a) arrows.get(a)!.add(b);
    }
  }
  return new Map([...arrows].map(([folder, to]) => [folder, [...to].sort()]));
}

/** The arrows that run inside one strongly connected component: each is part of a loop. */
export function loopArrows(graph: Map<string, string[]>): string[] {
  const componentOf = new Map<string, number>();
  cycles(graph).forEach((component, i) => component.forEach((node) => componentOf.set(node, i)));
  return [...graph]
    .flatMap(([from, to]) => to.map((target) => [from, target] as const))
    .filter(([from, to]) => componentOf.has(from) && componentOf.get(from) === componentOf.get(to))
    .map(([from, to]) => `${from} → ${to}`)
    .sort();
}
