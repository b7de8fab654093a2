import { describe, expect, it } from 'vitest';
import { emailKey, looksLikeEmail, normalizePhone } from '../../src/modules/contacts/identity.js';

describe('phone numbers in E.164', () => {
  it.each([
    ['+49 30 123456', '+4930123456'],
    ['030 123456', '+4930123456'],
    ['0049 30 123456', '+4930123456'],
    ['+49 (0)30 123456', '+4930123456'],
    ['030/123456', '+4930123456'],
    ['0176-12345678', '+4917612345678'],
    ['+41 44 668 18 00', '+41446681800'],
    ['0041 44 668 18 00', '+41446681800'],
    ['+33 1 42 68 53 00', '+33142685300'],
    ['+39 06 6982', '+39066982'],
    ['+1 (415) 555-2671', '+14155552671'],
    ['12', null],
    ['+49 ' + '1'.repeat(20), null],
    ['call me', null],
    ['', null],
  ])('%s → %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });

  it('reads national numbers by the given country', () => {
    expect(normalizePhone('044 668 18 00', 'CH')).toBe('+41446681800');
  });

  it('compares e-mail addresses without case and outer spaces', () => {
    expect(emailKey('  Erika@Example.TEST ')).toBe('erika@example.test');
    expect(looksLikeEmail('erika@example.test')).toBe(true);
    expect(looksLikeEmail('wa:4930123456')).toBe(false);
  });
});
