import { describe, expect, it } from 'vitest';
import { onboardingLink } from './overview';

describe('onboarding checklist links', () => {
  it('leads each step to where it is done', () => {
    expect(onboardingLink('entry_created', 'b1')).toBe('/bots/b1/knowledge');
    expect(onboardingLink('search_tested', 'b1')).toBe('/bots/b1/knowledge');
    expect(onboardingLink('strictness_reviewed', 'b1')).toBe('/bots/b1');
    expect(onboardingLink('entry_created', undefined)).toBe('/bots');
  });
});
