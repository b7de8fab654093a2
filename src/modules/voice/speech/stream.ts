/**
 * A streamed reply turned into speech as it comes: text goes out up to the last word boundary
 * that cannot be inside something spoken as a whole (a price, time, date, phone number, link
 * or tag), converted by speakFragment. Pure.
 */
import { speakFragment } from './normalise.js';
import type { VoiceLanguage } from './numbers.js';

export class SpokenStream {
  private held = '';
  /** Everything written so far (before conversion): the reply as the model wrote it. */
  written = '';

  constructor(private readonly lang: VoiceLanguage) {}

  /** Adds the model's next piece; returns what can be spoken now ('' when nothing yet). */
  push(piece: string): string {
    this.written += piece;
    this.held += piece;
    const cut = this.safeCut();
    if (cut <= 0) return '';
    const ready = this.held.slice(0, cut);
    this.held = this.held.slice(cut);
    return speakFragment(ready, this.lang);
  }

  /** The rest, at the end of the reply. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest === '' ? '' : speakFragment(rest, this.lang).trimEnd();
  }

  /** After the last whitespace preceded by a letter, outside brackets: 0 when there is none. */
  private safeCut(): number {
    const text = this.held;
    let depth = 0;
    let cut = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === '[' || c === '(') depth++;
      else if ((c === ']' || c === ')') && depth > 0) depth--;
      else if (depth === 0 && (c === ' ' || c === '\n') && i > 0 && /[\p{L},!?]/u.test(text[i - 1]!)) {
        cut = i + 1;
      }
    }
    return cut;
  }
}
