import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '@server/http/schemas.js';
import { CHAT_TEXT } from '@server/http/errors.js';
import i18n from '../i18n';
import de from '../i18n/de.json';
import en from '../i18n/en.json';
import { ApiError, call } from './client';
import { refusalText } from './error-text';

type Tree = Record<string, unknown>;
const lookup = (messages: unknown, key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Tree | undefined)?.[part], messages);

/** The enums of the OpenAPI document's error body: every code and every resource a 404 names. */
const schema = ErrorBody as unknown as {
  properties: { code: { enum: string[] }; details: { properties: { resource: { enum: string[] } } } };
};
const CODES = schema.properties.code.enum;
const RESOURCES = schema.properties.details.properties.resource.enum;

describe('translation coverage of the API error codes', () => {
  it.each([
    ['de', de],
    ['en', en],
  ] as const)('has a text for every code and resource of the OpenAPI document in %s', (_language, texts) => {
    expect(CODES.length).toBeGreaterThan(50);
    const missing = [
      ...CODES.filter((code) => typeof lookup(texts, `errors.codes.${code}`) !== 'string'),
      ...RESOURCES.filter((resource) => typeof lookup(texts, `errors.resources.${resource}`) !== 'string'),
      ...Object.keys(CHAT_TEXT).filter((key) => typeof lookup(texts, `errors.chat.${key}`) !== 'string'),
    ];
    expect(missing).toEqual([]);
  });

  it('uses in German and English the same placeholders for each code', () => {
    const placeholders = (text: unknown) => [...String(text).matchAll(/{{(\w+)}}/g)].map((m) => m[1]).sort();
    for (const code of CODES) {
      expect(placeholders(lookup(en, `errors.codes.${code}`)), code).toEqual(
        placeholders(lookup(de, `errors.codes.${code}`)),
      );
    }
  });
});

describe('error-code mapping', () => {
  beforeAll(async () => {
    i18n.addResourceBundle('de', 'translation', de);
    i18n.addResourceBundle('en', 'translation', en);
    await i18n.changeLanguage('de');
  });
  afterAll(async () => {
    await i18n.changeLanguage('de');
  });

  const refusedUrl = {
    error: 'validation_error',
    code: 'url_host_unresolvable',
    message: "Field 'url' refused: host 'nicht-da.example' cannot be resolved",
    details: { field: 'url', host: 'nicht-da.example' },
  };
  const answer = (status: number, body: unknown) =>
    call(
      Promise.resolve({
        error: body,
        response: new Response(JSON.stringify(body), { status, headers: { 'retry-after': '7' } }),
      }),
    );

  it('words a refusal by its code in the user language, never the server sentence', async () => {
    const error = (await answer(400, refusedUrl).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('url_host_unresolvable');
    expect(error.field).toBe('url');
    expect(error.message).toBe(
      'Der Server „nicht-da.example“ wurde nicht gefunden. Prüfen Sie die Schreibweise der Adresse.',
    );
    expect(error.message).not.toContain('refused');
    expect(error.retryAfterSeconds).toBe(7);
    await i18n.changeLanguage('en');
    const english = (await answer(400, refusedUrl).catch((e: unknown) => e)) as ApiError;
    expect(english.message).toBe(
      'The server "nicht-da.example" was not found. Check the spelling of the address.',
    );
    await i18n.changeLanguage('de');
  });

  it('fills in limits and the resource a 404 names', () => {
    expect(refusalText({ status: 400, code: 'field_too_long', details: { field: 'name', limit: 200 } })).toBe(
      'Zu lang: höchstens 200 Zeichen.',
    );
    expect(refusalText({ status: 404, code: 'not_found', details: { resource: 'event' } })).toBe(
      'Die Veranstaltung wurde nicht gefunden. Vielleicht wurde der Eintrag gelöscht.',
    );
  });

  it('falls back to the text of the status class for a code it does not know', () => {
    expect(refusalText({ status: 409, code: 'brand_new_rule', details: {} })).toBe(
      lookup(de, 'errors.codes.conflict'),
    );
    expect(refusalText({ status: 502, code: '', details: {} })).toBe(
      lookup(de, 'errors.codes.internal_error'),
    );
  });

  it("translates the chat endpoint's German texts by their meaning", async () => {
    expect(refusalText({ status: 429, code: CHAT_TEXT.quotaExhausted, details: {} })).toBe(
      'Nachrichtenlimit erreicht',
    );
    await i18n.changeLanguage('en');
    expect(refusalText({ status: 429, code: CHAT_TEXT.quotaExhausted, details: {} })).toBe(
      'Message limit reached',
    );
    await i18n.changeLanguage('de');
  });
});
