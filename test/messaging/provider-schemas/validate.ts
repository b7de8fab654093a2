/**
 * Validators of the provider request schemas in this folder (JSON Schema 2020-12, ajv), for the
 * fake providers. One adaptation, applied when compiling and not to the copied files: Meta's
 * message schemas write `additionalProperties: false` inside an `allOf` branch, which in JSON
 * Schema would refuse the properties of the other branch (every message); it is read as
 * `unevaluatedProperties: false` on the whole `allOf`, which is what it means. Twilio's form
 * parameters arrive as text and are coerced to the documented types; a parameter Twilio does not
 * document is refused as well (Twilio would ignore it silently, so it is a bug in Parley).
 *
 * One field is added to Meta's `BaseMessageProperties`: `biz_opaque_callback_data` (string, at
 * most 512 characters), which Meta's message reference documents for every sent message (it
 * comes back in the status webhooks) but the OpenAPI description lists only for calls. And the
 * `index` of a template's button component is read as its own description says, "Position index
 * of the button (0-9)": the published pattern `^[2-6, 11-14]$` is a character class that refuses
 * `0`, the index of the same schema's own example.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as metaMessages from './meta-messages.js';
import * as metaTemplates from './meta-message-templates.js';
import * as twilioContent from './twilio-content-create.js';
import * as twilioMessage from './twilio-create-message.js';

type Json = Record<string, unknown>;

/** `allOf` branches with `additionalProperties: false` → `unevaluatedProperties: false` on the allOf. */
function adapt(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(adapt);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = adapt(v);
  if (Array.isArray(out.allOf)) {
    let closed = false;
    out.allOf = (out.allOf as Json[]).map((branch) => {
      if (branch && branch.additionalProperties === false) {
        closed = true;
        const { additionalProperties: _dropped, ...rest } = branch;
        return rest;
      }
      return branch;
    });
    if (closed) out.unevaluatedProperties = false;
  }
  return out;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: 'array' });
addFormats.default(ajv);
ajv.addFormat('phone-number', true);

const compile = (schema: Json) => ajv.compile(adapt(schema) as Json);

function asDocumented(schema: Json): Json {
  const copy = structuredClone(schema) as { components: { schemas: Record<string, { properties: Json }> } };
  copy.components.schemas.BaseMessageProperties!.properties.biz_opaque_callback_data = {
    type: 'string',
    maxLength: 512,
  };
  copy.components.schemas.TemplateComponent!.properties.index = { type: 'string', pattern: '^[0-9]$' };
  return copy as unknown as Json;
}

const validators = {
  metaMessage: compile(asDocumented(metaMessages.schema)),
  metaTemplatesQuery: compile(metaTemplates.schema),
  twilioMessage: compile(twilioMessage.schema),
  twilioContent: compile(twilioContent.schema),
};
const twilioParameters = new Set(Object.keys((twilioMessage.schema as { properties: Json }).properties));

export type ProviderRequest = keyof typeof validators;

/** Why the request does not match the published schema, or null when it does. */
export function schemaProblem(kind: ProviderRequest, body: Json): string | null {
  if (kind === 'twilioMessage') {
    const unknown = Object.keys(body).filter((k) => !twilioParameters.has(k));
    if (unknown.length > 0) return `undocumented parameter ${unknown.join(', ')}`;
  }
  const validate = validators[kind];
  // Coercion writes into the value: validate a copy, the recorded request stays as sent.
  if (validate(structuredClone(body))) return null;
  return ajv.errorsText(validate.errors);
}

export const SOURCES = [
  metaMessages.source,
  metaTemplates.source,
  twilioMessage.source,
  twilioContent.source,
];
