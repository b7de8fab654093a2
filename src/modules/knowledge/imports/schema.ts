import { Type } from '@sinclair/typebox';
import { Page, PageQuery } from '../../../shared/pagination.js';
import { nameSchemas } from '../../../http/schemas.js';
import { MAX_IMPORT_FILES } from './service.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

const UrlField = (description: string) => Type.String({ minLength: 1, maxLength: 2000, description });

export const ImportJsonBody = Type.Object(
  {
    url: Type.Optional(UrlField('A web page to import (http or https); robots.txt is honoured')),
    sitemap_url: Type.Optional(
      UrlField('An XML sitemap (or sitemap index): its pages on the same origin are imported'),
    ),
  },
  { additionalProperties: false },
);

export const ImportMultipartBody = Type.Object({
  files: Type.Optional(
    Type.Array(Type.String({ format: 'binary' }), {
      maxItems: MAX_IMPORT_FILES,
      description: 'PDF, DOCX, HTML, text or Markdown files, each at most KNOWLEDGE_IMPORT_MAX_BYTES',
    }),
  ),
  url: Type.Optional(UrlField('A web page to import')),
  sitemap_url: Type.Optional(UrlField('An XML sitemap to import')),
});

export const ImportParams = Type.Object({ importId: Type.String({ description: 'Import id (UUID)' }) });
export const BotImportParams = Type.Object({
  id: Type.String({ description: 'Bot id (UUID)' }),
  importId: Type.String({ description: 'Import id (UUID)' }),
});

export const ImportListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

const ImportError = Type.Object({
  document: Type.String({ description: 'File name or URL the error is about' }),
  code: Type.String({
    description:
      'unsupported_format, too_large, damaged, encrypted, no_text_layer, no_text, too_many_entries, document_too_large, too_many_pages, compression_ratio, parser_timeout, parser_memory, invalid_entry, refused_address, robots_disallowed, http_status, timeout, fetch_failed, too_many_redirects, not_a_sitemap, page_limit, attempts_exhausted',
  }),
  message: Type.String({ description: 'What went wrong, in German words' }),
});

const ImportDocument = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.Union([Type.Literal('file'), Type.Literal('page')], {
    description: 'An uploaded file, or a web page (the url given or a page of the sitemap)',
  }),
  name: Type.String({ description: 'File name or URL' }),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('done'),
    Type.Literal('skipped'),
    Type.Literal('failed'),
  ]),
  pages: Type.Union([Type.Integer(), Type.Null()], { description: 'Pages of a PDF' }),
  entries_created: Type.Integer(),
  error_code: NullableString,
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the document failed, in German words',
  }),
});

const importFields = {
  id: Type.String({ format: 'uuid' }),
  bot_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'null: tenant-wide' }),
  scope: Type.Union([Type.Literal('bot'), Type.Literal('tenant')]),
  status: Type.Union(
    [Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')],
    { description: 'done: every document processed (some may have failed); failed: none could be imported' },
  ),
  sitemap_url: NullableString,
  documents_total: Type.Integer({ description: 'Files and web pages (known once the sitemap is read)' }),
  documents_done: Type.Integer({ description: 'Documents processed, whatever the outcome' }),
  pages_total: Type.Integer({ description: 'Web pages (the url and the pages of the sitemap)' }),
  pages_done: Type.Integer(),
  entries_created: Type.Integer(),
  errors: Type.Array(ImportError),
  created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  created_at: DateTime,
  started_at: NullableDateTime,
  finished_at: NullableDateTime,
  updated_at: DateTime,
};

export const ImportSchema = Type.Object({ ...importFields, documents: Type.Array(ImportDocument) });
export const ImportSummarySchema = Type.Object(importFields);
export const ImportListResponse = Page(ImportSummarySchema);

nameSchemas({
  KnowledgeImport: ImportSchema,
  KnowledgeImportSummary: ImportSummarySchema,
  KnowledgeImportDocument: ImportDocument,
  KnowledgeImportError: ImportError,
});
