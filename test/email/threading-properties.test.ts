import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseSubject, foldIds, replySubject, threadCandidates } from '../../src/modules/email/threading.js';
import { stripReply } from '../../src/modules/email/quotes.js';

const prefix = fc.constantFrom(
  'Re: ',
  'RE: ',
  'AW: ',
  'Aw: ',
  'SV: ',
  'Fwd: ',
  'WG: ',
  'TR: ',
  'R: ',
  'Re[3]: ',
  'RE : ',
);
const id = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9+=._-]{1,40}$/), fc.stringMatching(/^[a-z0-9.-]{1,30}$/))
  .map(([local, domain]) => `${local}@${domain}`);

describe('threading properties', () => {
  it('a reply subject never piles up prefixes and is stable', () => {
    fc.assert(
      fc.property(
        fc.array(prefix, { maxLength: 6 }),
        fc.stringMatching(/^[A-Za-zÄÖÜäöüß0-9 ,.!?-]{0,60}$/),
        (prefixes, base) => {
          const subject = replySubject(prefixes.join('') + base);
          expect(replySubject(subject)).toBe(subject);
          expect(/^Re:( |$)/.test(subject)).toBe(true);
          expect(baseSubject(subject)).toBe(baseSubject(base));
        },
      ),
    );
  });

  it('folded ids keep every id in order and no line above 78 characters', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1, maxLength: 25 }), (ids) => {
        const folded = `References: ${foldIds('References', ids)}`;
        for (const line of folded.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
        expect(threadCandidates({ headers: { references: [folded.slice('References: '.length)] } })).toEqual(
          ids,
        );
      }),
    );
  });

  it('stripping never adds text and keeps a text without quote marks whole', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9 äöüéè,.!?]{0,40}$/), { maxLength: 8 }), (lines) => {
        const text = lines.join('\n');
        const result = stripReply(text);
        expect(result.quoted).toBe('');
        expect(result.text).toBe(
          text
            .split('\n')
            .map((l) => l.replace(/[ \t]+$/, ''))
            .join('\n')
            .replace(/\n{3,}/g, '\n\n')
            .replace(/^\n+|\n+$/g, ''),
        );
      }),
    );
  });
});
