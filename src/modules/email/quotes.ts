/**
 * What the bot reads: the text a customer wrote, without the quoted conversation below (or
 * around) it and without the signature. German, English, French and Italian forms of the usual
 * clients: attribution lines (`Am … schrieb …:`, `On … wrote:`, `Le … a écrit :`,
 * `Il … ha scritto:`, Android's `… hat … geschrieben:`, Yahoo's `… Folgendes geschrieben:`),
 * Outlook and GMX/web.de header blocks (`Von:/From:/De:/Da:` with `Gesendet:/Sent:/Envoyé :/
 * Inviato:` …), `-----Original Message-----` separators, `>` quoting (also interleaved and
 * bottom-posted), `-- ` signatures and mobile footers. HTML-only mails are read structurally
 * first (`gmail_quote`, `divRplyFwdMsg`, `blockquote type=cite`, Thunderbird's and Yahoo's and
 * Proton's quote containers). Pure; the stored message keeps the whole text.
 */
import { parseHTML } from 'linkedom';

export interface StrippedReply {
  /** What the sender wrote. */
  text: string;
  /** The quoted conversation that was removed. */
  quoted: string;
  /** The removed signature and mobile footer. */
  signature: string;
}

// ---------------------------------------------------------------------------------------------
// Plain-text patterns

/**
 * Attribution lines ("On … wrote:"). The ones opening with their keyword are matched on up to
 * three joined lines (clients wrap them); the others only on one line.
 */
const ATTRIBUTION: RegExp[] = [
  /^on\b.{3,250}\bwrote\s*:$/i,
  /^am\b.{3,250}\bschrieb\b.{0,250}:$/i,
  /^am\b.{3,250}\bhat\b.{1,250}\bgeschrieben\s*:$/i,
  /^le\b.{3,250}\ba [ée]crit\s*:$/i,
  /^il\b.{3,250}\bha scritto\s*:$/i,
  /^in data\b.{3,250}\bha scritto\s*:$/i,
];
const ATTRIBUTION_ONE_LINE: RegExp[] = [
  /^.{1,150}<[^<>\s]+@[^<>\s]+>\s*(wrote|schrieb|a [ée]crit|ha scritto)\s*:$/i,
  /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}.{0,150}(wrote|schrieb|a [ée]crit|ha scritto)\s*:$/i,
];

/** Separator lines after which everything is the earlier conversation. */
const SEPARATOR =
  /^[-_=\s]*-{2,}\s*(original message|original-nachricht|urspr[üu]ngliche nachricht|message d'origine|messaggio originale|forwarded message|weitergeleitete nachricht|message transf[ée]r[ée]|messaggio inoltrato|nachricht im original)\s*-{2,}[-\s]*$/i;

const HEADER_KEYS: Record<string, 'from' | 'date' | 'to' | 'subject' | 'cc'> = {
  von: 'from',
  from: 'from',
  de: 'from',
  da: 'from',
  absender: 'from',
  gesendet: 'date',
  sent: 'date',
  date: 'date',
  datum: 'date',
  envoyé: 'date',
  envoye: 'date',
  inviato: 'date',
  data: 'date',
  an: 'to',
  to: 'to',
  à: 'to',
  a: 'to',
  pour: 'to',
  empfänger: 'to',
  cc: 'cc',
  betreff: 'subject',
  subject: 'subject',
  objet: 'subject',
  oggetto: 'subject',
};

function headerKey(line: string): string | undefined {
  const match = /^\s*\*?([\p{L}]+)\s?\*?\s?:\*?(\s|$)/u.exec(line);
  return match ? HEADER_KEYS[match[1]!.toLowerCase()] : undefined;
}

/** Outlook's line above its header block. */
const OUTLOOK_RULE = /^\s*_{10,}\s*$/;

/** Footers of mobile and web clients: removed as signature. */
const FOOTER = new RegExp(
  '^(' +
    [
      'sent from my [\\w\\s-]{2,40}',
      'sent from (yahoo mail|outlook|mail for windows|proton mail|my mobile).*',
      'get outlook for (ios|android).*',
      'sent with proton mail.*',
      'sent from proton mail.*',
      'von (meinem|yahoo mail) [\\w\\s-]{2,40} gesendet',
      'gesendet von (meinem|yahoo|mail für windows|outlook).*',
      'gesendet mit der (web\\.de|gmx) mail app.*',
      'von outlook für (ios|android) gesendet',
      'outlook für (ios|android) (herunterladen|beziehen).*',
      'holen sie sich outlook für (ios|android).*',
      'obtenir outlook pour (ios|android).*',
      'ottieni outlook per (ios|android).*',
      'mit proton mail gesendet.*',
      'gesendet mit proton mail.*',
      'envoy[ée] de (mon|yahoo mail) [\\w\\s-]{2,40}',
      'envoy[ée] (depuis|à partir de) .*',
      'envoy[ée] avec (la messagerie s[ée]curis[ée]e )?proton mail.*',
      't[ée]l[ée]charger outlook pour (ios|android).*',
      'inviato da (iphone|ipad|android|yahoo mail|outlook|libero mail|il mio)( .*)?',
      'inviato dal mio [\\w\\s-]{2,40}',
      'inviato con (l.email sicura di )?proton mail.*',
      'scarica outlook per (ios|android).*',
    ].join('|') +
    ')\\.?$',
  'i',
);

const isQuoteLine = (line: string) => /^\s*>/.test(line);
const isBlank = (line: string) => line.trim() === '';

function attributionAt(lines: readonly string[], i: number): number {
  // Returns how many lines the attribution starting at i spans (0: none).
  const first = lines[i]!.trim();
  if (ATTRIBUTION_ONE_LINE.some((re) => re.test(first))) return 1;
  for (let span = 1; span <= 3 && i + span <= lines.length; span++) {
    const part = lines.slice(i, i + span);
    if (span > 1 && (part.some(isBlank) || part.some((l) => isQuoteLine(l) !== isQuoteLine(part[0]!))))
      return 0;
    const joined = part
      .map((l) => l.trim())
      .join(' ')
      .replace(/\s+/g, ' ')
      .replace(/< /g, '<');
    if (ATTRIBUTION.some((re) => re.test(joined))) return span;
  }
  return 0;
}

function headerBlockAt(lines: readonly string[], i: number): boolean {
  if (!headerKey(lines[i]!)) return false;
  const kinds = new Set<string>();
  for (let j = i; j < Math.min(lines.length, i + 8); j++) {
    const kind = headerKey(lines[j]!);
    if (kind) kinds.add(kind);
    else if (!isBlank(lines[j]!) && j > i && !/^\s/.test(lines[j]!)) break;
  }
  return kinds.has('from') && (kinds.has('date') || kinds.has('subject')) && kinds.size >= 3;
}

function tidy(lines: readonly string[]): string {
  return lines
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

function normalise(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u202f]/g, ' ')
    .replace(/\u200b|\ufeff/g, '');
}

/** Quote and signature stripping of a plain text. */
export function stripText(input: string): StrippedReply {
  const lines = normalise(input).split('\n');
  const kept: string[] = [];
  const quoted: string[] = [];
  const signature: string[] = [];
  let i = 0;
  let inSignature = false;
  while (i < lines.length) {
    const line = lines[i]!;
    // Everything after a separator or a header block is the earlier conversation.
    if (
      SEPARATOR.test(line) ||
      headerBlockAt(lines, i) ||
      (OUTLOOK_RULE.test(line) && headerBlockAt(lines, i + 1))
    ) {
      quoted.push(...lines.slice(i));
      break;
    }
    const span = attributionAt(lines, i);
    if (span > 0) {
      // The quote that follows: `>` lines (then the text continues: bottom-posted or
      // interleaved) or, without `>`, the rest of the mail.
      let j = i + span;
      while (j < lines.length && isBlank(lines[j]!)) j++;
      if (j < lines.length && isQuoteLine(lines[j]!)) {
        quoted.push(...lines.slice(i, i + span));
        i += span;
        inSignature = false;
        continue;
      }
      quoted.push(...lines.slice(i));
      break;
    }
    if (isQuoteLine(line)) {
      quoted.push(line);
      inSignature = false;
      i++;
      continue;
    }
    if (line === '-- ' || line === '--' || FOOTER.test(line.trim())) inSignature = true;
    (inSignature ? signature : kept).push(line);
    i++;
  }
  return { text: tidy(kept), quoted: tidy(quoted), signature: tidy(signature) };
}

// ---------------------------------------------------------------------------------------------
// HTML

/** Containers of quoted conversation in the HTML of the usual clients. */
const QUOTE_SELECTORS = [
  '.gmail_quote',
  '.gmail_quote_container',
  'blockquote[type="cite"]',
  '.moz-cite-prefix',
  '.yahoo_quoted',
  '.protonmail_quote',
  '#protonmail_quote',
  '#mail-editor-reference-message-container',
  '.OutlookMessageHeader',
  '#appendonsend',
  'div[name="quote"]',
  'div[data-marker="__QUOTED_TEXT__"]',
].join(',');

const SIGNATURE_SELECTORS = [
  '.gmail_signature',
  '.gmail_signature_prefix',
  '.moz-signature',
  '.protonmail_signature_block',
  '#signature',
  '.signature',
].join(',');

const BLOCKS = new Set([
  'P',
  'DIV',
  'LI',
  'TR',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'BLOCKQUOTE',
  'PRE',
  'TABLE',
  'UL',
  'OL',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
]);

interface MiniNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<MiniNode>;
}

/** Text of an HTML fragment with line breaks where blocks and `<br>` are. */
export function htmlToText(root: MiniNode): string {
  let out = '';
  const newline = () => {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };
  const walk = (node: MiniNode) => {
    if (node.nodeType === 3) {
      out += (node.textContent ?? '').replace(/[ \t\r\n]+/g, ' ');
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (name === 'STYLE' || name === 'SCRIPT' || name === 'HEAD' || name === 'TITLE') return;
    if (name === 'BR') {
      out += '\n';
      return;
    }
    if (name === 'HR') {
      newline();
      out += '________________________________\n';
      return;
    }
    const block = BLOCKS.has(name);
    if (block) newline();
    for (let k = 0; k < node.childNodes.length; k++) walk(node.childNodes[k]!);
    if (block) newline();
    // A paragraph is followed by an empty line, except Outlook's margin-less MsoNormal lines.
    if (name === 'P' && !/\bMsoNormal\b/.test((node as { className?: string }).className ?? '')) out += '\n';
  };
  walk(root);
  return out
    .split('\n')
    .map((l) => l.replace(/^ +| +$/g, ''))
    .join('\n');
}

/**
 * Quote and signature stripping of an HTML body: the quote containers of the usual clients
 * and Outlook's `divRplyFwdMsg` header (with everything after it) are taken out, the rest is
 * turned into text, and the text patterns catch what had no marker.
 */
export function stripHtml(html: string): StrippedReply {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const quoted: string[] = [];
  const signature: string[] = [];
  const take = (element: Element, into: string[]) => {
    into.push(htmlToText(element as unknown as MiniNode));
    element.remove();
  };
  // Outlook: the header div and every sibling after it (the quoted mail), and the rule before it.
  const outlook = document.querySelector('#divRplyFwdMsg');
  if (outlook) {
    let previous = outlook.previousElementSibling;
    while (previous && previous.nodeName === 'HR') {
      const before = previous.previousElementSibling;
      previous.remove();
      previous = before;
    }
    let next = outlook.nextSibling;
    take(outlook, quoted);
    while (next) {
      const after = next.nextSibling;
      quoted.push(htmlToText(next as unknown as MiniNode));
      (next as ChildNode).remove();
      next = after;
    }
  }
  for (const element of [...document.querySelectorAll(QUOTE_SELECTORS)]) {
    if (element.isConnected) take(element, quoted);
  }
  for (const element of [...document.querySelectorAll(SIGNATURE_SELECTORS)]) {
    if (element.isConnected) take(element, signature);
  }
  const rest = stripText(htmlToText(document.body as unknown as MiniNode));
  return {
    text: rest.text,
    quoted: tidy([...quoted, rest.quoted].filter((q) => q.trim() !== '')),
    signature: tidy([...signature, rest.signature].filter((s) => s.trim() !== '')),
  };
}

/**
 * What the sender wrote: the plain-text part when there is one, else the HTML part read
 * structurally. `quoted` and `signature` hold what was removed.
 */
export function stripReply(text: string | null | undefined, html?: string | null): StrippedReply {
  if (text && text.trim() !== '') return stripText(text);
  if (html && html.trim() !== '') return stripHtml(html);
  return { text: '', quoted: '', signature: '' };
}
