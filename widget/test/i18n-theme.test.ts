import { describe, expect, it } from 'vitest';
import { TEXTS, pickLanguage } from '../src/i18n.js';
import { contrast, safeAvatar, safeColor, textOn, themeCss } from '../src/theme.js';
import { isHandover } from '../src/render.js';

describe('pickLanguage', () => {
  it.each([
    ['de', ['en-US'], 'de'],
    ['en', ['de-DE'], 'en'],
    ['de-AT', [], 'de'],
    ['fr', ['de-CH', 'en'], 'de'],
    [null, ['fr-FR', 'en-GB'], 'en'],
    [undefined, ['de'], 'de'],
    [null, ['fr', 'it'], 'en'],
    ['', [], 'en'],
  ] as const)('bot %s, browser %j → %s', (bot, browser, expected) => {
    expect(pickLanguage(bot, browser)).toBe(expected);
  });

  it('both languages have every text', () => {
    expect(Object.keys(TEXTS.en).sort()).toEqual(Object.keys(TEXTS.de).sort());
    for (const text of [...Object.values(TEXTS.de), ...Object.values(TEXTS.en)]) expect(text).not.toBe('');
    expect(TEXTS.de.handover).toBe('Ein Mensch antwortet gleich');
    expect(TEXTS.en.handover).toBe('A person will answer shortly');
  });
});

describe('theme', () => {
  it('only hex colours reach the stylesheet', () => {
    expect(safeColor('#AbC')).toBe('#abc');
    expect(safeColor('#112233')).toBe('#112233');
    for (const bad of ['red', '#12', 'url(x)', '#123456;}body{display:none', 12, null])
      expect(safeColor(bad)).toBeUndefined();
    expect(themeCss({ primary_color: 'red;}*{x:y' })).not.toContain('red');
  });

  it('text on the accent colour keeps at least 4.5:1', () => {
    for (const colour of [
      '#1c5fd4',
      '#ffcc00',
      '#000000',
      '#ffffff',
      '#2f9e44',
      '#e03131',
      '#777777',
      '#767676',
      '#808080',
      '#959595',
    ]) {
      expect(contrast(colour, textOn(colour)), colour).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('a text colour too faint on the background is replaced', () => {
    const css = themeCss({ background_color: '#ffffff', text_color: '#eeeeee' });
    expect(css).toContain('--parley-text:#000000');
    expect(themeCss({ background_color: '#000000', text_color: '#ffffff' })).toContain(
      '--parley-text:#ffffff',
    );
  });

  it('the default theme meets the contrast', () => {
    expect(themeCss(undefined)).toContain('--parley-on-primary:#ffffff');
    expect(contrast('#1c5fd4', '#ffffff')).toBeGreaterThanOrEqual(4.5);
  });

  it('avatars only over https (or localhost)', () => {
    expect(safeAvatar('https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(safeAvatar('http://localhost:3000/a.png')).toBeDefined();
    expect(safeAvatar('javascript:alert(1)')).toBeUndefined();
    expect(safeAvatar('http://example.com/a.png')).toBeUndefined();
    expect(safeAvatar(42)).toBeUndefined();
  });
});

describe('isHandover', () => {
  it.each([
    [{ status: 'handover' }, true],
    [{ handover: true }, true],
    [{ actions: [{ type: 'handover' }] }, true],
    [{ status: 'bot' }, false],
    [{ actions: [{ type: 'booking' }] }, false],
    [null, false],
  ])('%j → %s', (value, expected) => {
    expect(isHandover(value)).toBe(expected);
  });
});
