/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. the service of `npm run bench:chat` with
 * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>"): the functions with the most self time and
 * the most total time (self plus what they call, each function counted once per stack), and
 * self time per package or source file.
 *
 *   npm run bench:profile -- <file.cpuprofile> [--top=25] [--per=<count>] [--skip=<seconds>]
 *
 * --skip leaves out the first seconds of the profile (the service's start: compiling modules
 * and schemas); the busy milliseconds of each second are printed to choose it. --from=<text>
 * starts at the first sample whose stack holds a frame containing the text instead, e.g.
 * --from=src/modules/chat/service.ts for the first chat. --focus=<text> keeps only the samples
 * whose stack holds such a frame (one stage, e.g. --focus="generate src/modules/models/offline").
 *
 * With --per=<count> (e.g. the number of chats answered while profiling) the times are also
 * shown in milliseconds per chat.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!file) throw new Error('usage: bench:profile -- <file.cpuprofile> [--top=25] [--per=<count>]');
const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const TOP = Number(option('top') ?? 25);
const PER = Number(option('per') ?? 0);
const SKIP_MICROS = Number(option('skip') ?? 0) * 1e6;
const FROM = option('from');
const FOCUS = option('focus');

const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** Where a frame comes from: a package, a file of the project, or V8/Node itself. */
function origin(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

function frameName(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  return `${name} ${origin(frame.url)}:${frame.lineNumber + 1}`;
}

const self = new Map<string, number>();
const total = new Map<string, number>();
const perOrigin = new Map<string, number>();
let all = 0;
let idle = 0;
let elapsed = 0;
let started = FROM === undefined;
const busyPerSecond: number[] = [];
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsed += delta;
  const second = Math.floor(elapsed / 1e6);
  const isIdle = byId.get(id)!.callFrame.functionName === '(idle)';
  busyPerSecond[second] = (busyPerSecond[second] ?? 0) + (isIdle ? 0 : delta / 1000);
  if (elapsed < SKIP_MICROS) return;
  if (!started) {
    for (let node: number | undefined = id; node !== undefined && !started; node = parent.get(node)) {
      started = frameName(byId.get(node)!.callFrame).includes(FROM!);
    }
    if (!started) return;
  }
  all += delta;
  const leaf = byId.get(id)!;
  const leafName = frameName(leaf.callFrame);
  if (FOCUS !== undefined) {
    let inside = false;
    for (let node: number | undefined = id; node !== undefined && !inside; node = parent.get(node)) {
      inside = frameName(byId.get(node)!.callFrame).includes(FOCUS);
    }
    if (!inside) return;
  }
  if (leaf.callFrame.functionName === '(idle)') {
    idle += delta;
    return;
  }
  self.set(leafName, (self.get(leafName) ?? 0) + delta);
  const leafOrigin = leaf.callFrame.url === '' ? leafName : origin(leaf.callFrame.url);
  perOrigin.set(leafOrigin, (perOrigin.get(leafOrigin) ?? 0) + delta);
  const seen = new Set<string>();
  for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
    const name = frameName(byId.get(node)!.callFrame);
    if (seen.has(name)) continue;
    seen.add(name);
    total.set(name, (total.get(name) ?? 0) + delta);
  }
});

const busy = all - idle;
const row = (name: string, micros: number) => ({
  frame: name.length > 90 ? `${name.slice(0, 87)}...` : name,
  ms: +(micros / 1000).toFixed(1),
  '% of busy': +((100 * micros) / busy).toFixed(1),
  ...(PER > 0 ? { 'ms per chat': +(micros / 1000 / PER).toFixed(3) } : {}),
});
const top = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([name, micros]) => row(name, micros));

console.log(`Busy ms per second of the profile: ${busyPerSecond.map((ms) => Math.round(ms ?? 0)).join(' ')}`);
console.log(
  `${file}: ${(all / 1000).toFixed(0)} ms sampled${SKIP_MICROS > 0 ? ` after ${SKIP_MICROS / 1e6} s` : ''}, ${(busy / 1000).toFixed(0)} ms busy` +
    (PER > 0 ? ` (${(busy / 1000 / PER).toFixed(3)} ms per chat over ${PER})` : ''),
);
console.log('\nSelf time by package or file:');
console.table(top(perOrigin));
console.log('\nSelf time by function:');
console.table(top(self));
console.log('\nTotal time by function (self and callees):');
console.table(top(total));
