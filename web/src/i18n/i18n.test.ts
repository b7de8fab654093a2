import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONBOARDING_STEP_KEYS } from '@server/modules/knowledge/onboarding.js';
import { WEBHOOK_EVENT_TYPES } from '@server/modules/webhooks/event-types.js';
import deApp from './de.json';
import enApp from './en.json';
import deStart from './start.de.json';
import enStart from './start.en.json';

type Tree = { [key: string]: string | Tree };
/** The texts of a language: the sign-in part merged into the rest (as i18next merges them). */
function merged(app: Tree, start: Tree): Tree {
  const out: Tree = { ...app };
  for (const [key, value] of Object.entries(start)) {
    const current = out[key];
    out[key] = typeof value === 'object' && typeof current === 'object' ? merged(current, value) : value;
  }
  return out;
}
const de = merged(deApp as Tree, deStart as Tree);
const en = merged(enApp as Tree, enStart as Tree);

function keys(node: unknown, prefix = ''): string[] {
  if (typeof node === 'string') return [prefix];
  return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
    keys(v, prefix ? `${prefix}.${k}` : k),
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** A key in use may be stored as key, key_one/_other (plurals). */
function has(all: Set<string>, key: string): boolean {
  return all.has(key) || (all.has(`${key}_one`) && all.has(`${key}_other`));
}

describe('translations', () => {
  const deKeys = new Set(keys(de));
  const enKeys = new Set(keys(en));

  it('German and English have the same keys', () => {
    expect([...deKeys].filter((k) => !enKeys.has(k))).toEqual([]);
    expect([...enKeys].filter((k) => !deKeys.has(k))).toEqual([]);
  });

  it('every key the code uses exists in both languages', () => {
    const root = join(import.meta.dirname, '..');
    const used = new Set<string>();
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\('([\w.]+)'/g)) used.add(match[1]!);
      for (const match of text.matchAll(/key: '([\w.]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((key) => !has(deKeys, key) || !has(enKeys, key));
    expect(missing).toEqual([]);
  });

  it('no text is left empty or untranslated placeholders differ', () => {
    for (const key of deKeys) {
      const get = (tree: unknown) =>
        key.split('.').reduce((node, part) => (node as Record<string, unknown>)[part], tree) as string;
      const deText = get(de);
      const enText = get(en);
      expect(deText, key).not.toBe('');
      const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
      expect(vars(deText), key).toEqual(vars(enText));
    }
  });

  it('names every webhook event type and onboarding step of the API in both languages', () => {
    const wanted = [
      ...WEBHOOK_EVENT_TYPES.map((type) => `webhooks.eventTypes.${type}`),
      ...ONBOARDING_STEP_KEYS.map((key) => `overview.onboardingSteps.${key}`),
    ];
    expect(wanted.filter((key) => !deKeys.has(key) || !enKeys.has(key))).toEqual([]);
  });
});
