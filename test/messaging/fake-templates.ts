/**
 * The template endpoints of the fake providers (fake-providers.ts): Meta's
 * `GET /{version}/{waba-id}/message_templates` (two templates a page, `paging.next` to follow)
 * and its checks of a template message (code 132001 unknown, 132015 paused, 132016 disabled,
 * 132000 parameters: the header's text or media link, the body's numbered or named placeholders,
 * each URL button with `{{1}}`); Twilio's Content API `POST /v1/Content` (checked against the published
 * `ContentCreateRequest`), `GET /v1/ContentAndApprovals`, and its check of a message's
 * `ContentSid`. Tests set the templates each provider holds.
 */
import { schemaProblem } from './provider-schemas/validate.js';

export interface FakeMetaTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  components: Record<string, unknown>[];
}

export interface FakeContent {
  sid: string;
  friendly_name: string;
  language: string;
  types: Record<string, unknown>;
  /** The sample values of its variables. */
  variables?: Record<string, string>;
  /** WhatsApp approval: approved, pending, rejected, … (absent: never submitted). */
  approval?: string;
}

export interface TemplateState {
  meta: FakeMetaTemplate[];
  contents: FakeContent[];
}

type Answer = { status: number; payload: object };

const META_PAGE = 2;

/** Meta's template list, a page at a time (`after` is the index of the next one). */
export function metaTemplatesPage(url: URL, state: TemplateState): Answer {
  const query = Object.fromEntries(url.searchParams);
  const invalid = schemaProblem('metaTemplatesQuery', query);
  if (invalid) return { status: 400, payload: { error: { message: invalid, code: 100 } } };
  const from = Number(url.searchParams.get('after') ?? '0');
  const data = state.meta.slice(from, from + META_PAGE);
  const rest = from + META_PAGE < state.meta.length;
  const next = new URL(url);
  next.searchParams.set('after', String(from + META_PAGE));
  return {
    status: 200,
    payload: {
      data,
      paging: {
        cursors: { before: String(from), after: String(from + META_PAGE) },
        ...(rest ? { next: next.href } : {}),
      },
    },
  };
}

type Component = Record<string, unknown>;
type SentComponent = {
  type: string;
  sub_type?: string;
  index?: string;
  parameters?: Record<string, unknown>[];
};

const part = (t: FakeMetaTemplate, type: string) =>
  t.components.find((c) => String(c.type).toUpperCase() === type);

/** The placeholders Meta expects filled: numbered ones (their count) or the named ones. */
function expected(text: string): { count: number; names: string[] } {
  const keys = [...new Set([...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]!))];
  const names = keys.filter((k) => !/^\d+$/.test(k));
  return { count: keys.length, names };
}

/** Whether the sent parameters fill the text's placeholders: as many, and by name where named. */
function fills(text: string, given: Record<string, unknown>[] | undefined): boolean {
  const want = expected(text);
  const params = given ?? [];
  if (params.length !== want.count) return false;
  if (want.names.length === 0) return params.every((p) => p.type === 'text' && typeof p.text === 'string');
  const named = params.map((p) => p.parameter_name).sort();
  return JSON.stringify(named) === JSON.stringify([...want.names].sort());
}

/** Why Meta's check of the components refuses the message (132000, 132012), or null. */
function componentsProblem(known: FakeMetaTemplate, sent: SentComponent[]): string | null {
  const of = (type: string) => sent.filter((c) => c.type === type);
  if (of('header').length > 1 || of('body').length > 1) return 'a component twice';
  const header = part(known, 'HEADER') as Component | undefined;
  const format = String(header?.format ?? 'TEXT').toUpperCase();
  const sentHeader = of('header')[0]?.parameters;
  if (['IMAGE', 'DOCUMENT', 'VIDEO'].includes(format)) {
    const media = format.toLowerCase();
    const [p] = sentHeader ?? [];
    if (sentHeader?.length !== 1 || p?.type !== media) return 'header media missing';
    const link = (p[media] as { link?: unknown } | undefined)?.link;
    if (typeof link !== 'string' || !link.startsWith('https://')) return 'header media link';
  } else if (!fills(String(header?.text ?? ''), sentHeader)) return 'header parameters';
  if (!fills(String(part(known, 'BODY')?.text ?? ''), of('body')[0]?.parameters)) return 'body parameters';
  const buttons = ((part(known, 'BUTTONS') as Component | undefined)?.buttons ?? []) as Component[];
  const dynamic = buttons.flatMap((b, i) =>
    String(b.type).toUpperCase() === 'URL' && /\{\{\s*1\s*\}\}/.test(String(b.url)) ? [String(i)] : [],
  );
  const sentButtons = of('button');
  if (sentButtons.map((b) => b.index).join() !== dynamic.join()) return 'button parameters';
  for (const b of sentButtons) {
    const [p] = b.parameters ?? [];
    if (b.sub_type !== 'url' || b.parameters?.length !== 1 || p?.type !== 'text' || /\s/.test(String(p.text)))
      return 'url button parameter';
  }
  return null;
}

/** Why Meta would refuse a template message (its error code), or null. */
export function metaTemplateProblem(body: Record<string, unknown>, state: TemplateState): Answer | null {
  if (body.type !== 'template') return null;
  const t = body.template as { name: string; language: { code: string }; components?: SentComponent[] };
  const known = state.meta.find((m) => m.name === t.name && m.language === t.language.code);
  const fail = (code: number, message: string) => ({ status: 400, payload: { error: { message, code } } });
  if (!known) return fail(132001, 'Template name does not exist in the translation');
  if (known.status === 'PAUSED') return fail(132015, 'Template is paused');
  if (known.status === 'DISABLED') return fail(132016, 'Template is disabled');
  const problem = componentsProblem(known, t.components ?? []);
  if (problem)
    return fail(132000, `Number of parameters does not match the expected number of params (${problem})`);
  return null;
}

/** Twilio's Content API: create a content, list contents with their approvals. */
export function twilioContent(
  method: string,
  path: string,
  raw: string,
  state: TemplateState,
  onViolation: (problem: string) => void,
): Answer {
  if (method === 'POST' && path === '/v1/Content') {
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    const invalid = schemaProblem('twilioContent', body);
    if (invalid) {
      onViolation(invalid);
      return { status: 400, payload: { code: 20001, message: `Invalid request: ${invalid}`, status: 400 } };
    }
    const content: FakeContent = {
      sid: `HX${String(state.contents.length + 1).padStart(32, '0')}`,
      friendly_name: String(body.friendly_name ?? ''),
      language: String(body.language),
      types: body.types as Record<string, unknown>,
    };
    state.contents.push(content);
    return { status: 201, payload: resource(content) };
  }
  if (method === 'GET' && path.startsWith('/v1/ContentAndApprovals')) {
    return {
      status: 200,
      payload: {
        contents: state.contents.map((c) => ({
          ...resource(c),
          approval_requests: c.approval
            ? { name: c.friendly_name, category: 'UTILITY', status: c.approval }
            : {},
        })),
        meta: {
          page: 0,
          page_size: 500,
          first_page_url: path,
          previous_page_url: null,
          next_page_url: null,
          url: path,
          key: 'contents',
        },
      },
    };
  }
  return { status: 404, payload: { code: 20404, message: 'not found', status: 404 } };
}

function resource(c: FakeContent) {
  return {
    sid: c.sid,
    account_sid: 'AC',
    friendly_name: c.friendly_name,
    language: c.language,
    variables: c.variables ?? {},
    types: c.types,
    url: `https://content.twilio.com/v1/Content/${c.sid}`,
    date_created: new Date().toISOString(),
    date_updated: new Date().toISOString(),
    links: {},
  };
}

/** Why Twilio would refuse a message naming a content (63016 for an unapproved one outside the window is the test's to queue). */
export function twilioContentProblem(body: Record<string, unknown>, state: TemplateState): Answer | null {
  if (body.ContentSid === undefined) return null;
  if (!state.contents.some((c) => c.sid === body.ContentSid))
    return { status: 400, payload: { code: 21655, message: 'The ContentSid is Invalid', status: 400 } };
  return null;
}
