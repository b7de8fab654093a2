import { beforeAll, describe, expect, it } from 'vitest';
import i18n from 'i18next';
import { loadTexts } from '../../i18n';
import { durationText, percentText } from './Numbers';

describe('overview numbers as text', () => {
  beforeAll(async () => {
    await loadTexts();
  });
  it('writes shares as whole percentages and nothing to divide by as a dash', () => {
    expect(percentText(0.6049, 'de')).toBe('60 %');
    expect(percentText(0, 'en')).toBe('0 %');
    expect(percentText(null, 'de')).toBe('—');
  });
  it('writes the median time in seconds, minutes or hours', () => {
    const t = i18n.getFixedT('de');
    expect(durationText(null, t)).toBe('—');
    expect(durationText(45, t)).toBe('45 Sekunden');
    expect(durationText(600, t)).toBe('10 Minuten');
    expect(durationText(3 * 3600, t)).toBe('3 Stunden');
  });
});
