import { describe, expect, it } from 'vitest';
import { canonicalOrigin, cspLinesOf, previewDocument, snippetOf } from './origins';

describe('website origins', () => {
  it.each([
    ['https://www.example.com', 'https://www.example.com'],
    ['https://WWW.Example.com/', 'https://www.example.com'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['https://example.com:443', 'https://example.com'],
    ['  https://shop.example.de  ', 'https://shop.example.de'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalOrigin(input)).toBe(expected);
  });

  it.each([
    '',
    'example.com',
    'ftp://example.com',
    'https://example.com/shop',
    'https://example.com/?a=1',
    'https://example.com#top',
    'https://user:pw@example.com',
    'javascript:alert(1)',
  ])('refuses %j', (input) => {
    expect(canonicalOrigin(input)).toBeNull();
  });
});

describe('snippet and preview', () => {
  it('names the service origin and the key', () => {
    expect(snippetOf('https://parley.example', 'pk_abc')).toBe(
      '<script src="https://parley.example/widget/v1.js" data-key="pk_abc" async></script>',
    );
    expect(cspLinesOf('https://parley.example').split('\n')).toEqual([
      'script-src https://parley.example;',
      'connect-src https://parley.example;',
      'style-src https://parley.example;',
    ]);
  });

  it('escapes the preview data so a greeting cannot leave its attribute', () => {
    const doc = previewDocument('https://p.example', 'pk_x', {
      name: 'Bot',
      language: 'de',
      theme: { greeting: '"><script>alert(1)</script>' },
    });
    expect(doc).not.toContain('<script>alert');
    expect(doc.match(/<script /g)).toHaveLength(1);
  });
});
