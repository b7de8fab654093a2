import { Type } from '@sinclair/typebox';
import type { PromptVersionRow } from './repository.js';
import { nameSchemas } from '../../../http/schemas.js';

/** Longest prompt text accepted, in characters. */
export const MAX_PROMPT_CHARS = 100_000;

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const PromptVersionSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    bot_id: Type.String({ format: 'uuid' }),
    tenant_id: Type.String({ format: 'uuid' }),
    prompt_text: Type.String({ description: 'Full prompt of this version' }),
    version_name: NullableString,
    change_notes: NullableString,
    version_number: Type.Integer({ minimum: 1, description: 'Running number per bot' }),
    is_current: Type.Boolean({ description: 'Exactly one version of a bot is current' }),
    created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'User who saved it',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Prompt version' },
);

export const VersionParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  versionId: Type.String({ description: 'Prompt version id (UUID)' }),
});

export const ListVersionsResponse = Type.Object({
  success: Type.Literal(true),
  versions: Type.Array(PromptVersionSchema, { description: 'Newest first' }),
  current_version: Type.Union([PromptVersionSchema, Type.Null()], {
    description: 'The current version; null while the bot has no versions',
  }),
  current_prompt: Type.String({ description: "The bot's present system_prompt" }),
});

export const SaveVersionBody = Type.Object(
  {
    prompt_text: Type.String({ minLength: 1, maxLength: MAX_PROMPT_CHARS, description: 'Full prompt text' }),
    version_name: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    change_notes: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const VersionResponse = Type.Object({
  success: Type.Literal(true),
  version: PromptVersionSchema,
  current_prompt: Type.String({ description: "The bot's system_prompt after the change" }),
});

export const DeleteVersionResponse = Type.Object({
  success: Type.Literal(true),
  deleted_id: Type.String({ format: 'uuid' }),
});

export const DiffQuery = Type.Object({
  against: Type.Optional(
    Type.String({ description: 'Version to compare against (UUID); the current version when omitted' }),
  ),
});

const VersionSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  version_number: Type.Integer(),
  version_name: NullableString,
});

export const DiffResponse = Type.Object({
  success: Type.Literal(true),
  from: VersionSummary,
  to: VersionSummary,
  patch: Type.String({ description: 'Unified diff from `from` to `to`' }),
  changes: Type.Array(
    Type.Object({
      type: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('unchanged')]),
      lines: Type.Array(Type.String()),
    }),
  ),
  stats: Type.Object({ added: Type.Integer(), removed: Type.Integer(), unchanged: Type.Integer() }),
});

export function serializeVersion(row: PromptVersionRow) {
  return { ...row, created_at: row.created_at.toISOString() };
}

export function summarizeVersion(row: PromptVersionRow) {
  return { id: row.id, version_number: row.version_number, version_name: row.version_name };
}

// Named component schemas of the OpenAPI document.
nameSchemas({ PromptVersion: PromptVersionSchema });
