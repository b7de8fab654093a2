import { describe, expect, it } from 'vitest';
import { errorText, isActive, isImportUrl, progressPercent, selectFiles } from './import-progress';

describe('import progress', () => {
  it.each([
    ['queued', 0, 0, 0],
    ['running', 1, 4, 25],
    ['running', 2, 3, 67],
    ['done', 3, 3, 100],
    ['failed', 0, 0, 100],
  ] as const)('%s with %i of %i documents is %i %%', (status, done, total, percent) => {
    expect(progressPercent({ status, documents_done: done, documents_total: total })).toBe(percent);
    expect(isActive({ status })).toBe(status === 'queued' || status === 'running');
  });

  it('shows German readers the API sentence and others the sentence of the code', () => {
    const error = { document: 'scan.pdf', code: 'no_text_layer', message: 'Das PDF enthält keinen Text.' };
    const translate = (key: string) =>
      key === 'knowledgeImport.errors.no_text_layer' ? 'No text layer.' : null;
    expect(errorText(error, 'de', translate)).toBe('Das PDF enthält keinen Text.');
    expect(errorText(error, 'en', translate)).toBe('No text layer.');
    expect(errorText({ ...error, code: 'new_code' }, 'en', translate)).toBe('Das PDF enthält keinen Text.');
  });

  it('takes at most ten non-empty files', () => {
    const files = [{ size: 0 }, ...Array.from({ length: 12 }, () => ({ size: 5 }))];
    const { accepted, dropped } = selectFiles(files);
    expect(accepted).toHaveLength(10);
    expect(dropped).toBe(3);
  });

  it('accepts http and https URLs only', () => {
    expect(isImportUrl('https://example.test/seite')).toBe(true);
    expect(isImportUrl(' http://example.test ')).toBe(true);
    expect(isImportUrl('ftp://example.test')).toBe(false);
    expect(isImportUrl('example.test')).toBe(false);
  });
});
