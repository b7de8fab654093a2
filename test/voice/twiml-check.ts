/**
 * TwiML checks of the tests: well-formed XML (a strict parser), at most 64 kB, and only the
 * verbs and attributes the official library defines. Twilio publishes no current schema, so
 * the allowlist is read from the library's own TwiML classes: each `<Verb>` is a
 * `VoiceResponse.<Verb>` class, its attributes the fields of `<Verb>Attributes`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SaxesParser } from 'saxes';

export interface TwimlElement {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: TwimlElement[];
}

function readAllowlist(): Map<string, Set<string>> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('twilio/lib/twiml/VoiceResponse.js'));
  const source = readFileSync(join(dir, 'VoiceResponse.d.ts'), 'utf8');
  const verbs = new Set([...source.matchAll(/export class (\w+) extends TwiML/g)].map((m) => m[1]!));
  const allowed = new Map<string, Set<string>>([['Response', new Set()]]);
  for (const verb of verbs) allowed.set(verb, new Set());
  for (const match of source.matchAll(/export interface (\w+)Attributes \{([\s\S]*?)\n {4}\}/g)) {
    const verb = match[1]!;
    const fields = [...match[2]!.matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]!);
    // An attributes interface may be declared more than once (Language): the union counts.
    const set = allowed.get(verb) ?? new Set<string>();
    for (const field of fields) set.add(field);
    if (verbs.has(verb)) allowed.set(verb, set);
  }
  return allowed;
}

export const TWIML_ALLOWLIST = readAllowlist();

/** Parses strictly; throws on anything not well-formed, too large, or not in the allowlist. */
export function checkTwiml(xml: string): TwimlElement {
  if (Buffer.byteLength(xml) > 64 * 1024) throw new Error('TwiML larger than 64 kB');
  const parser = new SaxesParser();
  const stack: TwimlElement[] = [];
  let root: TwimlElement | null = null;
  let failure: Error | null = null;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    // Without namespaces every attribute value is a string.
    const attributes = { ...(tag.attributes as Record<string, string>) };
    const allowed = TWIML_ALLOWLIST.get(tag.name);
    if (!allowed) failure ??= new Error(`unknown verb <${tag.name}>`);
    for (const name of Object.keys(attributes)) {
      if (allowed && !allowed.has(name)) failure ??= new Error(`unknown attribute ${tag.name}@${name}`);
    }
    const element: TwimlElement = { name: tag.name, attributes, text: '', children: [] };
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('text', (text) => {
    if (stack.length > 0) stack.at(-1)!.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  if (failure) throw failure;
  if (!root || (root as TwimlElement).name !== 'Response') throw new Error('no <Response> root');
  return root;
}

/** The elements of a document in order, depth first. */
export function elementsOf(root: TwimlElement): TwimlElement[] {
  return [root, ...root.children.flatMap(elementsOf)];
}
