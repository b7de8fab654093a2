/** The theme object a bot's widget settings carry (every field optional). */
export interface Theme {
  /** Accent colour of the launcher, the header and the visitor's messages (#rgb or #rrggbb). */
  primary_color?: string | null;
  /** Background of the panel. */
  background_color?: string | null;
  /** Text colour of the panel. */
  text_color?: string | null;
  /** `bottom-left` / `bottom-right` (the service's values), or `left` / `right`. */
  position?: 'left' | 'right' | 'bottom-left' | 'bottom-right' | null;
  greeting?: string | null;
  avatar_url?: string | null;
}

export const DEFAULT_THEME = {
  primary: '#1c5fd4',
  background: '#ffffff',
  text: '#1a1b1e',
} as const;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** A colour of the theme when it is a hex colour (nothing else reaches the stylesheet). */
export function safeColor(value: unknown): string | undefined {
  return typeof value === 'string' && HEX.test(value.trim()) ? value.trim().toLowerCase() : undefined;
}

function channels(hex: string): [number, number, number] {
  const h = hex.slice(1);
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}

/** Relative luminance (WCAG 2.2). */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio of two colours (WCAG 2.2), 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * White or black, whichever reads better on the background: one of the two always reaches
 * 4.5:1 (the worst case, a mid grey, still has 4.58:1 against one of them).
 */
export function textOn(background: string): string {
  return contrast(background, '#ffffff') >= contrast(background, '#000000') ? '#ffffff' : '#000000';
}

/**
 * The theme as CSS custom properties on the widget's host (a constructed stylesheet, never a
 * style attribute). Colours are hex only; a text colour that would fall below 4.5:1 against the
 * background is replaced by the default. The page can still override every property on the
 * `parley-chat` element.
 */
export function themeCss(theme: Theme | null | undefined): string {
  const primary = safeColor(theme?.primary_color) ?? DEFAULT_THEME.primary;
  const background = safeColor(theme?.background_color) ?? DEFAULT_THEME.background;
  let text = safeColor(theme?.text_color) ?? DEFAULT_THEME.text;
  if (contrast(text, background) < 4.5) text = textOn(background);
  return (
    `:host{--parley-primary:${primary};--parley-on-primary:${textOn(primary)};` +
    `--parley-background:${background};--parley-text:${text};}`
  );
}

/** Whether the theme puts the widget on the left. */
export function onLeft(theme: Theme | null | undefined): boolean {
  return theme?.position === 'left' || theme?.position === 'bottom-left';
}

/** An avatar URL the widget shows: https (or http on localhost) only. */
export function safeAvatar(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && url.hostname === 'localhost')
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}
