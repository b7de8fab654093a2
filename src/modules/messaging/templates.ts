/**
 * Message templates of the closed 24-hour window, without I/O except the provider reads: a
 * template as the service keeps it (its shape: template-shape.ts), the provider message that
 * sends it with a person's parameters, and the template changes of Meta's webhooks. Meta's templates are read from
 * `GET {base}/{business_account_id}/message_templates` (paging followed, on the configured host
 * only).
 */
import { checkProviderUrl } from './guards.js';
import { list, metaShape, obj, str, type TemplateShape, type TemplateSlot } from './template-shape.js';
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

/** One template of Meta's `message_templates` answer as the service keeps it. */
export function metaTemplateOf(t: Record<string, unknown>): TemplateRecord | null {
  const name = str(t.name);
  const language = str(t.language);
  if (!name || !language) return null;
  const components = list(t.components);
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
export interface TemplateChange {
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
export function parseTemplateUpdates(body: unknown): TemplateChange[] {
  const out: TemplateChange[] = [];
  for (const entry of list(obj(body).entry)) {
    for (const change of list(obj(entry).changes)) {
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
    for (const t of list(json.data)) {
      const record = metaTemplateOf(obj(t));
      if (record) templates.push(record);
    }
    next = str(obj(json.paging).next) || null;
  }
  return { ok: true, templates };
}
