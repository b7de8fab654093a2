/**
 * What a template send fills, without I/O (the dashboard's preview uses it too): a template's
 * shape computed from the provider's components — a header's text or media, the body's `{{1}}`,
 * `{{2}}` … or named placeholders, a URL button's end, Twilio's variables wherever they stand —
 * and its text filled in with a person's parameters. Its readers of provider JSON (`str`, `obj`,
 * `list`) serve the messaging module's other readers too.
 */
export const str = (v: unknown) => (typeof v === 'string' ? v : '');
export const obj = (v: unknown) =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The highest positional placeholder `{{n}}` of a body (Meta numbers them 1…n without gaps). */
export function placeholderCount(body: string): number {
  let most = 0;
  for (const m of body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) most = Math.max(most, Number(m[1]));
  return most;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/**
 * The placeholders of a text in the order a send fills them: numbered ones `1…n` (the highest
 * number; Meta numbers them without gaps), or Meta's named ones (`{{first_name}}`) in the order
 * they first appear.
 */
export function placeholdersOf(text: string): string[] {
  const keys = [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
  if (keys.length === 0) return [];
  if (keys.every((k) => /^\d+$/.test(k)))
    return Array.from({ length: placeholderCount(text) }, (_, i) => String(i + 1));
  return keys.filter((k) => !/^\d+$/.test(k));
}

/** The text with each placeholder replaced by its value (unknown ones stay as they are). */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (all, key: string) => values[key] ?? all);
}

/** What one parameter of a template send fills. */
export interface TemplateSlot {
  /** `header` (its text or its media), `body` (a placeholder), `button` (a URL button's end). */
  part: 'header' | 'body' | 'button';
  /** `text`, `url` (the end of a link: a button's, or a Twilio media link), or the header's media by its link. */
  kind: 'text' | 'url' | 'image' | 'document' | 'video';
  /** The placeholder: `1`, `2` … or Meta's named one (`first_name`); null for a media header. */
  key: string | null;
  /** The button's position (0-based) for a URL button. */
  button: number | null;
  /** A URL button's text; the link a `url` parameter completes, with its placeholder. */
  buttonText: string | null;
  url: string | null;
  /** The provider's example value, when the template has one. */
  example: string | null;
}

/** What a send of a template fills, and what it shows the customer. */
export interface TemplateShape {
  /** The header's text with its placeholders (null: none, or media). */
  header: string | null;
  body: string;
  footer: string | null;
  /** The parameters a send takes, in order: header, body, buttons. */
  slots: TemplateSlot[];
  /** Why the inbox cannot send it, in words (a part it cannot fill), or null. */
  unsupported: string | null;
}

const slot = (
  part: TemplateSlot['part'],
  kind: TemplateSlot['kind'],
  key: string | null,
  example: string | null,
  button: Pick<TemplateSlot, 'button' | 'buttonText' | 'url'> = { button: null, buttonText: null, url: null },
): TemplateSlot => ({ part, kind, key, example, ...button });

const MEDIA_HEADERS = new Set(['IMAGE', 'DOCUMENT', 'VIDEO']);
/** Buttons that need no parameter in a send. */
const PLAIN_BUTTONS = new Set(['QUICK_REPLY', 'PHONE_NUMBER', 'VOICE_CALL']);
const UNSUPPORTED_BUTTON: Record<string, string> = {
  COPY_CODE: 'einen Knopf „Code kopieren“',
  OTP: 'einen Einmal-Code-Knopf',
  FLOW: 'einen Flow-Knopf',
  CATALOG: 'einen Katalog-Knopf',
  MPM: 'einen Produkt-Knopf',
  SPM: 'einen Produkt-Knopf',
};
const UNSUPPORTED_HEADER: Record<string, string> = { LOCATION: 'einen Standort in der Kopfzeile' };
const UNSUPPORTED_PART: Record<string, string> = {
  CAROUSEL: 'ein Karussell',
  LIMITED_TIME_OFFER: 'ein befristetes Angebot',
};

/** Meta's example of a placeholder: `body_text[0][i]`, `header_text[i]` or the named ones' list. */
function exampleOf(example: Record<string, unknown>, prefix: 'body' | 'header', key: string, i: number) {
  const named = list(example[`${prefix}_text_named_params`]).find((p) => str(obj(p).param_name) === key);
  if (named) return str(obj(named).example) || null;
  const positional = prefix === 'body' ? list(list(example.body_text)[0]) : list(example.header_text);
  return str(positional[i]) || null;
}

/**
 * The shape of a Meta template from its components (as `message_templates` lists them): a text
 * header's placeholders, or its media (a link in the send), the body's placeholders, the URL
 * buttons with `{{1}}` at the end of their link. Parts the inbox cannot fill (a location header,
 * a carousel, a code, flow or catalog button …) make it unsupported, in words.
 */
export function metaShape(components: unknown[]): TemplateShape {
  const shape: TemplateShape = { header: null, body: '', footer: null, slots: [], unsupported: null };
  const refuse = (what: string) => {
    shape.unsupported ??= `Diese Vorlage enthält ${what}; der Posteingang kann sie nicht ausfüllen.`;
  };
  const typed = components.map(obj);
  const of = (type: string) => typed.find((c) => str(c.type).toUpperCase() === type);
  const header = of('HEADER');
  if (header) {
    const format = str(header.format).toUpperCase() || 'TEXT';
    if (format === 'TEXT') {
      shape.header = str(header.text) || null;
      placeholdersOf(shape.header ?? '').forEach((key, i) =>
        shape.slots.push(slot('header', 'text', key, exampleOf(obj(header.example), 'header', key, i))),
      );
    } else if (MEDIA_HEADERS.has(format)) {
      shape.slots.push(slot('header', format.toLowerCase() as 'image' | 'document' | 'video', null, null));
    } else refuse(UNSUPPORTED_HEADER[format] ?? `eine Kopfzeile vom Typ ${format}`);
  }
  const body = of('BODY');
  shape.body = str(body?.text);
  placeholdersOf(shape.body).forEach((key, i) =>
    shape.slots.push(slot('body', 'text', key, exampleOf(obj(body?.example), 'body', key, i))),
  );
  shape.footer = str(of('FOOTER')?.text) || null;
  list(of('BUTTONS')?.buttons).forEach((b, index) => {
    const button = obj(b);
    const type = str(button.type).toUpperCase();
    if (type === 'URL') {
      const url = str(button.url);
      if (placeholdersOf(url).length > 0)
        shape.slots.push(
          slot('button', 'url', '1', str(list(button.example)[0]) || null, {
            button: index,
            buttonText: str(button.text) || null,
            url,
          }),
        );
    } else if (!PLAIN_BUTTONS.has(type)) refuse(UNSUPPORTED_BUTTON[type] ?? `einen Knopf vom Typ ${type}`);
  });
  for (const c of typed) {
    const what = UNSUPPORTED_PART[str(c.type).toUpperCase()];
    if (what) refuse(what);
  }
  return shape;
}

/** Every text of a JSON value with the key it stands under and the action it belongs to. */
function textsOf(value: unknown, key = '', action: Record<string, unknown> | null = null) {
  const out: { key: string; text: string; action: Record<string, unknown> | null }[] = [];
  if (typeof value === 'string') out.push({ key, text: value, action });
  else if (Array.isArray(value)) for (const v of value) out.push(...textsOf(v, key, action));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value))
      out.push(...textsOf(v, k, key === 'actions' ? (value as Record<string, unknown>) : action));
  return out;
}

/**
 * The shape of a Twilio content (stored as `[{types, variables}]`; earlier as `[types]`): its
 * variables `{{1}}`… wherever they stand — in a text (body, title, footer), at the end of a
 * button's link, or in the media's link — with the content's sample value as the example.
 */
export function twilioShape(body: string, components: unknown[]): TemplateShape {
  const stored = obj(components[0]);
  const types = stored.types !== undefined ? obj(stored.types) : stored;
  const samples = obj(stored.variables);
  const texts = textsOf(types);
  const slots = placeholdersOf(JSON.stringify(types)).map((key) => {
    const holds = new RegExp(`\\{\\{\\s*${key}\\s*\\}\\}`);
    const where = texts.filter((t) => holds.test(t.text));
    const example = str(samples[key]) || null;
    const isLink = (t: { key: string }) => t.key === 'url' || t.key === 'media';
    const link = where.find(isLink);
    if (!link || !where.every(isLink)) return slot('body', 'text', key, example);
    return link.action
      ? slot('button', 'url', key, example, {
          button: null,
          buttonText: str(link.action.title) || null,
          url: link.text,
        })
      : slot('header', 'url', key, example, { button: null, buttonText: null, url: link.text });
  });
  return { header: null, body, footer: null, slots, unsupported: null };
}

const MEDIA_WORD = { image: 'Bild', document: 'Dokument', video: 'Video' } as const;

/**
 * What the customer reads, part by part: the header (filled in, or the media's link), the body
 * filled in, the footer.
 */
export function filledParts(shape: TemplateShape, parameters: string[]) {
  const values = (part: TemplateSlot['part']) =>
    Object.fromEntries(
      shape.slots.flatMap((slot, i) =>
        slot.part === part && slot.key ? [[slot.key, parameters[i] ?? '']] : [],
      ),
    );
  const media = shape.slots.findIndex((s) => s.part === 'header' && s.key === null);
  const kind = shape.slots[media]?.kind as keyof typeof MEDIA_WORD | undefined;
  return {
    header:
      kind !== undefined
        ? `[${MEDIA_WORD[kind]}] ${parameters[media] ?? ''}`
        : shape.header && fillPlaceholders(shape.header, values('header')),
    body: fillPlaceholders(shape.body, values('body')),
    footer: shape.footer,
  };
}

/** What the customer reads, as the person's message stores it: the filled parts, a blank line apart. */
export function filledTemplate(shape: TemplateShape, parameters: string[]): string {
  const { header, body, footer } = filledParts(shape, parameters);
  return [header, body, footer].filter((line): line is string => Boolean(line?.trim())).join('\n\n');
}
