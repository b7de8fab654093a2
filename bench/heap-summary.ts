/**
 * Summarises a V8 heap snapshot (.heapsnapshot, e.g. from `BENCH_HEAP_SNAPSHOT=<dir> npm run
 * bench:chat`): what holds the heap, without opening DevTools.
 *
 *   npm run bench:heap -- <file.heapsnapshot> [--top=25]
 *
 * Prints self sizes by node type and by type + constructor name, the objects that retain the
 * most (retained size from the dominator tree, weak edges ignored, as DevTools does) with a
 * shortest path from the roots, and the largest collections (Map, Set, Array, LRUCache).
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: npm run bench:heap -- <file.heapsnapshot> [--top=25]');
  process.exit(1);
}
const TOP = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);

const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const meta = data.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const N = data.nodes.length / NF;
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  meta.node_fields.indexOf(f),
) as [number, number, number, number];
const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) =>
  meta.edge_fields.indexOf(f),
) as [number, number, number];
const WEAK = edgeTypes.indexOf('weak');
const SHORTCUT = edgeTypes.indexOf('shortcut');

const nodes = Int32Array.from(data.nodes);
const edges = Int32Array.from(data.edges);
const strings = data.strings;

const type = (n: number) => nodeTypes[nodes[n * NF + typeAt]!]!;
const name = (n: number) => strings[nodes[n * NF + nameAt]!]!;
const selfSize = (n: number) => nodes[n * NF + sizeAt]!;

/** First edge (index into the edge array / EF) of every node, and one past the last. */
const firstEdge = new Int32Array(N + 1);
for (let n = 0, e = 0; n < N; n++) {
  firstEdge[n] = e;
  e += nodes[n * NF + edgeCountAt]!;
  firstEdge[n + 1] = e;
}
const target = (e: number) => edges[e * EF + toAt]! / NF;
const retains = (e: number) => {
  const t = edges[e * EF + edgeTypeAt]!;
  return t !== WEAK && t !== SHORTCUT;
};
function edgeName(e: number): string {
  const t = edges[e * EF + edgeTypeAt]!;
  const v = edges[e * EF + edgeNameAt]!;
  const kind = edgeTypes[t]!;
  return kind === 'element' || kind === 'hidden' ? `[${v}]` : strings[v]!;
}

/** A readable label: strings show their start, objects their constructor. */
function label(n: number): string {
  const t = type(n);
  if (t === 'string' || t === 'concatenated string' || t === 'sliced string') {
    return `"${name(n).slice(0, 40).replace(/\s+/g, ' ')}"`;
  }
  if (t === 'object' || t === 'closure' || t === 'native') return name(n) || `(${t})`;
  return `(${t}) ${name(n).slice(0, 50)}`;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

// --- Depth-first post-order from the root (node 0), over retaining edges -------------------
const postOrder = new Int32Array(N);
const orderOf = new Int32Array(N).fill(-1);
const visited = new Uint8Array(N);
let reachable = 0;
{
  const stack = new Int32Array(N);
  const cursor = new Int32Array(N);
  let sp = 0;
  stack[sp++] = 0;
  visited[0] = 1;
  cursor[0] = firstEdge[0]!;
  while (sp > 0) {
    const n = stack[sp - 1]!;
    let pushed = false;
    while (cursor[n]! < firstEdge[n + 1]!) {
      const e = cursor[n]!;
      cursor[n] = e + 1;
      if (!retains(e)) continue;
      const t = target(e);
      if (visited[t]) continue;
      visited[t] = 1;
      cursor[t] = firstEdge[t]!;
      stack[sp++] = t;
      pushed = true;
      break;
    }
    if (!pushed) {
      sp -= 1;
      orderOf[n] = reachable;
      postOrder[reachable++] = n;
    }
  }
}

// --- Predecessors of reachable nodes -----------------------------------------------------
const predCount = new Int32Array(N + 1);
for (let n = 0; n < N; n++) {
  if (!visited[n]) continue;
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e++) if (retains(e)) predCount[target(e) + 1]! += 1;
}
for (let n = 0; n < N; n++) predCount[n + 1]! += predCount[n]!;
const preds = new Int32Array(predCount[N]!);
{
  const fill = predCount.slice(0, N);
  for (let n = 0; n < N; n++) {
    if (!visited[n]) continue;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e++) {
      if (retains(e)) preds[fill[target(e)]!++] = n;
    }
  }
}

// --- Dominators (Cooper, Harvey, Kennedy: iterate in reverse post-order until stable) ------
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
{
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (orderOf[a]! < orderOf[b]!) a = idom[a]!;
      while (orderOf[b]! < orderOf[a]!) b = idom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = reachable - 2; i >= 0; i--) {
      const n = postOrder[i]!;
      let dom = -1;
      for (let p = predCount[n]!; p < predCount[n + 1]!; p++) {
        const pred = preds[p]!;
        if (idom[pred] === -1) continue;
        dom = dom === -1 ? pred : intersect(pred, dom);
      }
      if (dom !== -1 && idom[n] !== dom) {
        idom[n] = dom;
        changed = true;
      }
    }
  }
}

// --- Retained sizes: children before parents, i.e. in post-order ----------------------------
const retained = new Float64Array(N);
for (let i = 0; i < reachable; i++) {
  const n = postOrder[i]!;
  retained[n] = retained[n]! + selfSize(n);
  if (n !== 0) retained[idom[n]!] = retained[idom[n]!]! + retained[n]!;
}

// --- Shortest retaining path from the root (breadth first) ---------------------------------
const parentEdge = new Int32Array(N).fill(-1);
const parentNode = new Int32Array(N).fill(-1);
{
  const queue = new Int32Array(N);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parentNode[0] = 0;
  while (head < tail) {
    const n = queue[head++]!;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e++) {
      if (!retains(e)) continue;
      const t = target(e);
      if (parentNode[t] !== -1) continue;
      parentNode[t] = n;
      parentEdge[t] = e;
      queue[tail++] = t;
    }
  }
}
/** The last steps of a shortest path from the roots, e.g. `Context.cache → LRUCache.#keyMap`. */
function path(n: number, steps = 5): string {
  const parts: string[] = [];
  for (let at = n; at !== 0 && parts.length < steps; at = parentNode[at]!) {
    const up = parentNode[at]!;
    const edge = edgeName(parentEdge[at]!);
    const holder = type(up) === 'synthetic' ? name(up) : label(up);
    parts.push(`${holder}${edge.startsWith('[') ? edge : `.${edge}`}`);
  }
  return parts.reverse().join(' → ');
}

// --- Report ------------------------------------------------------------------------------
let total = 0;
const byType = new Map<string, { size: number; count: number }>();
const byName = new Map<string, { size: number; count: number }>();
for (let n = 0; n < N; n++) {
  if (!visited[n]) continue;
  const size = selfSize(n);
  total += size;
  const t = type(n);
  const group = t === 'object' || t === 'closure' || t === 'native' ? `${t} ${name(n)}` : `(${t})`;
  for (const [map, key] of [
    [byType, t],
    [byName, group],
  ] as const) {
    const entry = map.get(key) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count += 1;
    map.set(key, entry);
  }
}

console.log(
  `${file}: ${reachable.toLocaleString()} reachable nodes of ${N.toLocaleString()}, ${mb(total)} MB`,
);

const table = (rows: [string, { size: number; count: number }][]) =>
  console.table(
    rows.map(([key, { size, count }]) => ({
      what: key.slice(0, 70),
      MB: mb(size),
      '%': ((size / total) * 100).toFixed(1),
      count,
    })),
  );
console.log('\nSelf size by node type');
table([...byType].sort((a, b) => b[1].size - a[1].size));
console.log(`\nSelf size by type and constructor (top ${TOP})`);
table([...byName].sort((a, b) => b[1].size - a[1].size).slice(0, TOP));

/** Nodes ranked by retained size, leaving out the root and synthetic nodes. */
const ranked = Array.from(postOrder.subarray(0, reachable))
  .filter((n) => n !== 0 && type(n) !== 'synthetic')
  .sort((a, b) => retained[b]! - retained[a]!);

console.log(`\nLargest retained sizes (top ${TOP})`);
console.table(
  ranked.slice(0, TOP).map((n) => ({
    object: label(n).slice(0, 40),
    'retained MB': mb(retained[n]!),
    'self MB': mb(selfSize(n)),
    path: path(n),
  })),
);

const COLLECTIONS = new Set(['Map', 'Set', 'Array', 'LRUCache', 'WeakMap']);
console.log(`\nLargest collections (top ${TOP})`);
console.table(
  ranked
    .filter((n) => type(n) === 'object' && COLLECTIONS.has(name(n)))
    .slice(0, TOP)
    .map((n) => ({
      object: name(n),
      'retained MB': mb(retained[n]!),
      path: path(n),
    })),
);
