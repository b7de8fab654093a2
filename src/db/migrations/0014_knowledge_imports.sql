-- Imports of documents (PDF, DOCX, HTML, text, web pages, sitemaps) into the knowledge base,
-- run as jobs by the background scheduler, and what an imported entry remembers about its
-- source so that the chat can cite it and a second import of the same source replaces it.

-- source_key: the idempotency key of the imported document within the entry's scope
-- ('sha256:<hex>' of a file, the URL of a web page); source_hash: SHA-256 of the document's
-- bytes; source_name: the file name; source_page: the PDF page the entry's text is from.
ALTER TABLE knowledge_entries ADD COLUMN source_key varchar(2100);
ALTER TABLE knowledge_entries ADD COLUMN source_hash char(64);
ALTER TABLE knowledge_entries ADD COLUMN source_name varchar(255);
ALTER TABLE knowledge_entries ADD COLUMN source_page integer CHECK (source_page > 0);
CREATE INDEX knowledge_entries_source_idx ON knowledge_entries (tenant_id, bot_id, source_key)
  WHERE source_key IS NOT NULL;

-- One import job. bot_id null: tenant-wide entries. A worker holds the job while lease_token
-- is its own and locked_until lies ahead; a stopped worker's job is taken over afterwards.
CREATE TABLE knowledge_imports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid REFERENCES bots(id) ON DELETE CASCADE,
  status varchar(10) NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  sitemap_url varchar(2000),
  -- null: no sitemap or not read yet; true once its pages are listed as documents.
  sitemap_read boolean,
  sitemap_error_code varchar(40),
  sitemap_error text,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  lease_token uuid,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_imports_scope_idx ON knowledge_imports (tenant_id, bot_id, created_at DESC, id DESC);
CREATE INDEX knowledge_imports_open_idx ON knowledge_imports (created_at) WHERE status IN ('queued', 'running');

-- The documents of a job: uploaded files (content kept as base64 until processed) and web
-- pages (the URL given, or the pages a sitemap lists).
CREATE TABLE knowledge_import_documents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  import_id uuid NOT NULL REFERENCES knowledge_imports(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  kind varchar(4) NOT NULL CHECK (kind IN ('file', 'page')),
  name varchar(2000) NOT NULL,
  media_type varchar(200),
  content text,
  sha256 char(64),
  status varchar(10) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'skipped', 'failed')),
  error_code varchar(40),
  error text,
  pages integer,
  entries_created integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (import_id, position)
);
CREATE INDEX knowledge_import_documents_tenant_idx ON knowledge_import_documents (tenant_id);
