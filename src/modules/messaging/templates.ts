/**
 * Message templates of the closed 24-hour window, without I/O except the provider reads: a
 * template as the service keeps it (the body with its `{{1}}`, `{{2}}` … placeholders and how
 * many there are), its body filled in with a person's parameters, and the provider message that
 * sends it. Meta's templates are read from `GET {base}/{business_account_id}/message_templates`
 * (paging followed, on the configured host only).
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
  parameterCount: number;
  components: unknown[];
}

/** The only status a template may be sent in. */
export const APPROVED = 'APPROVED';

/** The most a body parameter may hold (Meta: 1,024 characters per text parameter in the body). */
export const PARAMETER_MAX_CHARS = 1024;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

/** The highest positional placeholder `{{n}}` of a body (Meta numbers them 1…n without gaps). */
export function placeholderCount(body: string): number {
  let most = 0;
  for (const m of body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) most = Math.max(most, Number(m[1]));
  return most;
}

/** The body with `{{n}}` replaced by the n-th parameter. */
export function fillBody(body: string, parameters: string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (all, n: string) => parameters[Number(n) - 1] ?? all);
}

/** One template of Meta's `message_templates` answer as the service keeps it. */
export function metaTemplateOf(t: Record<string, unknown>): TemplateRecord | null {
  const name = str(t.name);
  const language = str(t.language);
  if (!name || !language) return null;
  const components = Array.isArray(t.components) ? t.components : [];
  const body = str(obj(components.find((c) => str(obj(c).type).toUpperCase() === 'BODY')).text);
  return {
    name,
    language,
    providerId: t.id !== undefined ? String(t.id) : null,
    status: str(t.status).toUpperCase() || 'UNKNOWN',
    category: str(t.category) || null,
    body,
    parameterCount: placeholderCount(body),
    components,
  };
}

/** Meta's template message: the body's parameters as text, the language deterministic. */
export function metaTemplatePart(
  template: Pick<TemplateRecord, 'name' | 'language'>,
  parameters: string[],
): Record<string, unknown> {
  return {
    type: 'template',
    template: {
      name: template.name,
      language: { policy: 'deterministic', code: template.language },
      components:
        parameters.length > 0
          ? [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }]
          : [],
    },
  };
}

/** A template status change of Meta's `message_template_status_update` webhook. */
export interface TemplateStatusUpdate {
  /** The WhatsApp Business Account the change belongs to (the entry's id). */
  accountId: string | null;
  providerId: string | null;
  name: string;
  language: string | null;
  status: string;
}

/** The template status changes of one webhook payload. */
export function parseTemplateUpdates(body: unknown): TemplateStatusUpdate[] {
  const out: TemplateStatusUpdate[] = [];
  const entries = Array.isArray(obj(body).entry) ? (obj(body).entry as unknown[]) : [];
  for (const entry of entries) {
    const changes = Array.isArray(obj(entry).changes) ? (obj(entry).changes as unknown[]) : [];
    for (const change of changes) {
      const c = obj(change);
      if (c.field !== 'message_template_status_update') continue;
      const v = obj(c.value);
      const status = str(v.event).toUpperCase();
      const name = str(v.message_template_name);
      if (!status || (!name && v.message_template_id === undefined)) continue;
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
