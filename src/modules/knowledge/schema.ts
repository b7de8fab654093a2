import { Type, type Static } from '@sinclair/typebox';
import { CountedPage, PageQuery } from '../../shared/pagination.js';
import { LANGUAGES } from '../../shared/text.js';
import { ONBOARDING_STEP_KEYS } from './onboarding.js';
import { nameSchemas } from '../../http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

const Language = Type.Union(
  LANGUAGES.map((l) => Type.Literal(l)),
  { description: 'de, en, fr or it; detected from the text when omitted (short texts default to de)' },
);

export const MAX_IMPORT_ENTRIES = 100;

export const EntryBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    content: Type.String({
      minLength: 1,
      description: 'Plain text or Markdown, at most KNOWLEDGE_MAX_ENTRY_BYTES (default 1 MB) in UTF-8',
    }),
    source_url: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'http(s) URL' }))),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
    language: Type.Optional(Language),
  },
  { additionalProperties: false },
);

export type EntryInput = Static<typeof EntryBody>;

export const ImportFile = Type.Object(
  {
    filename: Type.String({ minLength: 1, maxLength: 255, description: 'e.g. faq.md or hours.txt' }),
    content: Type.String({ minLength: 1, description: 'The file as text' }),
    source_url: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

export const ImportBody = Type.Union([
  Type.Object(
    {
      entries: Type.Optional(Type.Array(EntryBody, { maxItems: MAX_IMPORT_ENTRIES })),
      files: Type.Optional(
        Type.Array(ImportFile, {
          maxItems: MAX_IMPORT_ENTRIES,
          description: 'Text or Markdown files; the title is the first Markdown heading, else the file name',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.String({ description: 'One text/plain or text/markdown file as the raw body' }),
]);

export const ImportQuery = Type.Object(
  {
    title: Type.Optional(
      Type.String({ minLength: 1, maxLength: 300, description: 'Title of a raw file import' }),
    ),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const EntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  bot_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'null for a tenant-wide entry',
  }),
  scope: Type.Union([Type.Literal('bot'), Type.Literal('tenant')]),
  title: Type.String(),
  content: Type.String(),
  source_url: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  language: Language,
  language_detected: Type.Boolean({ description: 'false when given by the client or defaulted' }),
  chunk_count: Type.Integer({ description: 'Search chunks the entry was split into' }),
  vectors_missing: Type.Boolean({
    description:
      'true while the chunks lack vectors because the embeddings endpoint failed; filled in the background',
  }),
  source_name: Nullable(Type.String({ description: 'File name of an imported entry' })),
  source_page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'PDF page an imported entry is from',
  }),
  created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
});

export const EntrySummarySchema = Type.Composite([
  Type.Omit(EntrySchema, ['content']),
  Type.Object({
    content_preview: Type.String({ description: 'First 200 characters' }),
    content_length: Type.Integer({ description: 'Length of the content in characters' }),
  }),
]);

export const ListQuery = Type.Object(
  {
    ...PageQuery,
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only entries with this tag' }),
    ),
  },
  { additionalProperties: false },
);

export const ListResponse = CountedPage(EntrySummarySchema);

export const ImportResponse = Type.Object({
  imported: Type.Integer(),
  entries: Type.Array(EntrySummarySchema),
});

export const BotParams = Type.Object({ id: Type.String({ description: 'Bot id (UUID)' }) });
export const BotEntryParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  entryId: Type.String({ description: 'Entry id (UUID)' }),
});
export const EntryParams = Type.Object({ entryId: Type.String({ description: 'Entry id (UUID)' }) });

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 10000,
      description: 'The message to test, as a chat user would send it',
    }),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, default: 3, description: 'The chat uses the top 3' }),
    ),
  },
  { additionalProperties: false },
);

export const SearchResponse = Type.Object({
  query: Type.String(),
  min_score: Type.Number({ description: "The bot's knowledge_min_score, else KNOWLEDGE_MIN_SCORE" }),
  results: Type.Array(
    Type.Object({
      entry_id: Type.String({ format: 'uuid' }),
      chunk_id: Type.String({ format: 'uuid' }),
      title: Type.String(),
      content: Type.String({ description: 'The matching chunk' }),
      score: Type.Number({ minimum: 0, maximum: 1 }),
      source_url: Nullable(Type.String()),
      scope: Type.Union([Type.Literal('bot'), Type.Literal('tenant')]),
      used_in_chat: Type.Boolean({
        description: 'Among the top 3, at or above min_score and kept by the answerability decision',
      }),
    }),
  ),
  decision: Type.Object(
    {
      answer: Type.Boolean({
        description:
          'true: the chat answers from the knowledge base; false: it has no knowledge and hands over',
      }),
      reason: Type.Union(
        [
          Type.Literal('answer'),
          Type.Literal('no_hits'),
          Type.Literal('low_score'),
          Type.Literal('missing_key_terms'),
          Type.Literal('low_similarity'),
        ],
        { description: 'Why (see docs/knowledge.md "Answerability")' },
      ),
      key_terms: Type.Array(Type.String(), {
        description: "The question's key terms: codes, numbers and names, as searched",
      }),
      missing_terms: Type.Array(Type.String(), {
        description: 'Key terms the best hit at or above min_score lacks',
      }),
    },
    { description: "The chat's answerability decision for this message" },
  ),
});

export const OnboardingResponse = Type.Object({
  started: Type.Boolean({ description: 'false until the first step is done' }),
  complete: Type.Boolean(),
  steps: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      automatic: Type.Boolean({ description: 'Ticked by the service when the tenant does it' }),
      done: Type.Boolean(),
      done_at: Type.Union([DateTime, Type.Null()]),
    }),
  ),
});

export const OnboardingStepParams = Type.Object({
  step: Type.String({ description: `One of ${ONBOARDING_STEP_KEYS.join(', ')}` }),
});
export const OnboardingStepBody = Type.Object({ done: Type.Boolean() }, { additionalProperties: false });

// Named component schemas of the OpenAPI document.
nameSchemas({
  KnowledgeEntry: EntrySchema,
  KnowledgeEntrySummary: EntrySummarySchema,
  KnowledgeOnboarding: OnboardingResponse,
});
