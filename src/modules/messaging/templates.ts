/**
 * Message templates of the closed 24-hour window, without I/O except the provider reads: a
 * template as the service keeps it, its shape (what a send fills: a header's text or media, the
 * body's `{{1}}`, `{{2}}` … or named placeholders, a URL button's end), its text filled in with a
 * person's parameters, and the provider message that sends it. Meta's templates are read from
 * `GET {base}/{business_account_id}/message_templates` (paging followed, on the configured host
 * only).
 */
import { checkProviderUrl } from './guards.js';
import { transportFailure } from './whatsapp.js';

/** A template as stored per connection. */
export interface TemplateRecord {
  name: string;
  language: string;
  providerId: string | null;
  status: string;
  category: string | null;
  body: string;
  components: unknown[];
}

/** The only status a template may be sent in. */
export const APPROVED = 'APPROVED';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

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

/** The body with `{{n}}` replaced by the n-th parameter. */
export function fillBody(body: string, parameters: string[]): string {
  return fillPlaceholders(body, Object.fromEntries(parameters.map((p, i) => [String(i + 1), p])));
}

/** What one parameter of a template send fills. */
export interface TemplateSlot {
  /** `header` (its text or its media), `body` (a placeholder), `button` (a URL button's end). */
  part: 'header' | 'body' | 'button';
  /** `text`, `url` (the end of a button's link), or the header's media by its link. */
  kind: 'text' | 'url' | 'image' | 'document' | 'video';
  /** The placeholder: `1`, `2` … or Meta's named one (`first_name`); null for a media header. */
  key: string | null;
  /** The button's position (0-based) for a URL button. */
  button: number | null;
  /** The button's text and its link with `{{1}}` (URL buttons). */
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
const UNSUPPORTED_PART: Record<string, string> = {
  CAROUSEL: 'ein Karussell',
  LIMITED_TIME_OFFER: 'ein befristetes Angebot',
  LOCATION: 'einen Standort in der Kopfzeile',
};

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

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
    } else refuse(UNSUPPORTED_PART[format] ?? `eine Kopfzeile vom Typ ${format}`);
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
    const type = str(c.type).toUpperCase();
    if (UNSUPPORTED_PART[type] && type !== 'LOCATION') refuse(UNSUPPORTED_PART[type]!);
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
    const link = where.find((t) => t.key === 'url' || t.key === 'media');
    if (!link || where.some((t) => t !== link && t.key !== 'url' && t.key !== 'media'))
      return slot('body', 'text', key, example);
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
 * What the customer reads, as the person's message stores it: the header (filled in, or the
 * media's link), the body filled in, the footer.
 */
export function filledTemplate(shape: TemplateShape, parameters: string[]): string {
  const values = (part: TemplateSlot['part']) =>
    Object.fromEntries(
      shape.slots.flatMap((slot, i) =>
        slot.part === part && slot.key ? [[slot.key, parameters[i] ?? '']] : [],
      ),
    );
  const media = shape.slots.findIndex((s) => s.part === 'header' && s.key === null);
  const kind = shape.slots[media]?.kind as keyof typeof MEDIA_WORD | undefined;
  const header =
    kind !== undefined
      ? `[${MEDIA_WORD[kind]}] ${parameters[media] ?? ''}`
      : shape.header && fillPlaceholders(shape.header, values('header'));
  return [header, fillPlaceholders(shape.body, values('body')), shape.footer]
    .filter((line): line is string => Boolean(line?.trim()))
    .join('\n\n');
}

/** One template of Meta's `message_templates` answer as the service keeps it. */
export function metaTemplateOf(t: Record<string, unknown>): TemplateRecord | null {
  const name = str(t.name);
  const language = str(t.language);
  if (!name || !language) return null;
  const components = Array.isArray(t.components) ? t.components : [];
  const shape = metaShape(components);
  return {
    name,
    language,
    providerId: t.id !== undefined ? String(t.id) : null,
    status: str(t.status).toUpperCase() || 'UNKNOWN',
    category: str(t.category) || null,
    body: shape.body,
    components,
  };
}

/**
 * Meta's template message: the header's parameter (text, or the media by its link), the body's
 * (named ones with their `parameter_name`), each URL button's end; the language deterministic.
 */
export function metaTemplatePart(
  template: Pick<TemplateRecord, 'name' | 'language'>,
  shape: Pick<TemplateShape, 'slots'>,
  parameters: string[],
): Record<string, unknown> {
  const parameter = (slot: TemplateSlot, value: string) =>
    slot.kind === 'image' || slot.kind === 'document' || slot.kind === 'video'
      ? { type: slot.kind, [slot.kind]: { link: value } }
      : {
          type: 'text',
          text: value,
          ...(slot.key && !/^\d+$/.test(slot.key) ? { parameter_name: slot.key } : {}),
        };
  const ofPart = (part: TemplateSlot['part']) =>
    shape.slots.flatMap((slot, i) => (slot.part === part ? [parameter(slot, parameters[i] ?? '')] : []));
  const components: Record<string, unknown>[] = [];
  for (const part of ['header', 'body'] as const) {
    const given = ofPart(part);
    if (given.length > 0) components.push({ type: part, parameters: given });
  }
  shape.slots.forEach((slot, i) => {
    if (slot.part === 'button')
      components.push({
        type: 'button',
        sub_type: 'url',
        index: String(slot.button),
        parameters: [{ type: 'text', text: parameters[i] ?? '' }],
      });
  });
  return {
    type: 'template',
    template: {
      name: template.name,
      language: { policy: 'deterministic', code: template.language },
      components,
    },
  };
}

/**
 * A template change of Meta's webhooks: a new status (`message_template_status_update`), or its
 * components or category changed (`message_template_components_update`,
 * `template_category_update`: `status` null, the template must be read anew).
 */
export interface TemplateStatusUpdate {
  /** The WhatsApp Business Account the change belongs to (the entry's id). */
  accountId: string | null;
  providerId: string | null;
  name: string;
  language: string | null;
  status: string | null;
}

/** The webhook fields of a template whose content changed: the stored one is stale. */
const CONTENT_FIELDS = new Set(['message_template_components_update', 'template_category_update']);

/** The template changes of one webhook payload. */
export function parseTemplateUpdates(body: unknown): TemplateStatusUpdate[] {
  const out: TemplateStatusUpdate[] = [];
  const entries = Array.isArray(obj(body).entry) ? (obj(body).entry as unknown[]) : [];
  for (const entry of entries) {
    const changes = Array.isArray(obj(entry).changes) ? (obj(entry).changes as unknown[]) : [];
    for (const change of changes) {
      const c = obj(change);
      const field = str(c.field);
      if (field !== 'message_template_status_update' && !CONTENT_FIELDS.has(field)) continue;
      const v = obj(c.value);
      const status = CONTENT_FIELDS.has(field) ? null : str(v.event).toUpperCase();
      const name = str(v.message_template_name);
      if (status === '' || (!name && v.message_template_id === undefined)) continue;
      out.push({
        accountId: str(obj(entry).id) || null,
        providerId: v.message_template_id !== undefined ? String(v.message_template_id) : null,
        name,
        language: str(v.message_template_language) || null,
        status,
      });
    }
  }
  return out;
}

/** The outcome of reading a provider's templates. */
export type ReadOutcome =
  | { ok: true; templates: TemplateRecord[] }
  | { ok: false; code: string | null; httpStatus: number | null; text: string };

/** At most this many pages are read (100 templates each): a loop in `paging.next` ends. */
const MAX_PAGES = 50;

/** Every template of a WhatsApp Business Account, following `paging.next`. */
export async function readMetaTemplates(
  base: string,
  account: { businessAccountId: string; token: string },
  timeoutMs: number,
): Promise<ReadOutcome> {
  const root = base.replace(/\/+$/, '');
  const query = new URLSearchParams({ fields: 'name,language,status,category,components,id', limit: '100' });
  let next: string | null =
    `${root}/${encodeURIComponent(account.businessAccountId)}/message_templates?${query.toString()}`;
  const templates: TemplateRecord[] = [];
  for (let page = 0; next && page < MAX_PAGES; page += 1) {
    try {
      checkProviderUrl(next, base);
    } catch {
      // A paging link to another host is not followed (the token goes only to the configured one).
      return { ok: false, code: null, httpStatus: null, text: 'paging link outside the configured host' };
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(next, {
        headers: { authorization: `Bearer ${account.token}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const failed = transportFailure(error);
      return { ok: false, code: null, httpStatus: null, text: failed.ok ? '' : failed.text };
    }
    let json: Record<string, unknown> = {};
    try {
      json = obj(JSON.parse(text));
    } catch {
      // An answer that is not JSON (a proxy's page) is judged by its status.
    }
    if (!response.ok) {
      const error = obj(json.error);
      return {
        ok: false,
        code: error.code !== undefined ? String(error.code) : null,
        httpStatus: response.status,
        text: str(error.message).slice(0, 300) || `HTTP ${response.status}`,
      };
    }
    for (const t of Array.isArray(json.data) ? json.data : []) {
      const record = metaTemplateOf(obj(t));
      if (record) templates.push(record);
    }
    next = str(obj(json.paging).next) || null;
  }
  return { ok: true, templates };
}
