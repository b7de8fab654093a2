import type { TranscriptMessage } from './types.js';

/**
 * Rendering helpers of the panel: elements, icons, style sheets, and what counts as a hand-over.
 */
const HANDOVER = new Set([
  'handover',
  'human',
  'person',
  'waiting_for_human',
  'pending_human',
  'handed_over',
]);

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function icon(d: string): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

export const CLOSE_ICON =
  'M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z';
export const DELETE_ICON = 'M9 3h6l1 2h4v2H4V5h4zm-3 6h12l-1 12H7z';

export function sheet(css: string): CSSStyleSheet {
  const s = new CSSStyleSheet();
  s.replaceSync(css);
  return s;
}

/** Whether a response or a status says the conversation went to people. */
export function isHandover(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  if (v.handover === true) return true;
  if (typeof v.status === 'string' && HANDOVER.has(v.status)) return true;
  if (Array.isArray(v.actions))
    return v.actions.some((a) => a && typeof a === 'object' && (a as { type?: unknown }).type === 'handover');
  return false;
}

/** Who wrote a message, as the visitor reads it: "Anna" for a person with a name. */
export function authorOf(
  message: Pick<TranscriptMessage, 'from' | 'author'>,
  texts: { you: string; person: string; bot: string },
  botName: string | undefined,
): string {
  if (message.from === 'visitor') return texts.you;
  if (message.from === 'person') return message.author?.name || texts.person;
  return botName || texts.bot;
}

/** "Montag, 09:00" in the visitor's language: when a person answers again. */
export function whenText(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { weekday: 'long', hour: '2-digit', minute: '2-digit' }).format(
    new Date(iso),
  );
}
