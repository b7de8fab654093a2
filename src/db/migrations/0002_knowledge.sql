-- Knowledge base: entries (of one bot, or of the whole tenant when bot_id is null), the
-- search chunks they are split into, a per-tenant vocabulary used to correct typos in
-- queries, and the tenant's knowledge-base onboarding checklist.

CREATE TABLE knowledge_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid REFERENCES bots(id) ON DELETE CASCADE,
  title varchar(300) NOT NULL,
  content text NOT NULL,
  source_url varchar(2000),
  tags text[] NOT NULL DEFAULT ARRAY[]::text[],
  -- ISO 639-1 code of the text search configuration the chunks were indexed with.
  language varchar(2) NOT NULL CHECK (language IN ('de', 'en', 'fr', 'it')),
  language_detected boolean NOT NULL DEFAULT true,
  chunk_count integer NOT NULL DEFAULT 0,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX knowledge_entries_scope_idx ON knowledge_entries (tenant_id, bot_id, created_at DESC, id DESC);

-- bot_id repeats the entry's bot so that a search filters chunks without a join.
CREATE TABLE knowledge_chunks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  entry_id uuid NOT NULL REFERENCES knowledge_entries(id) ON DELETE CASCADE,
  bot_id uuid REFERENCES bots(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  content text NOT NULL,
  tsv tsvector NOT NULL,
  embedding real[],
  embedding_norm real,
  UNIQUE (entry_id, position)
);
CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING gin (tsv);
CREATE INDEX knowledge_chunks_scope_idx ON knowledge_chunks (tenant_id, bot_id);

-- Distinct words of a tenant's entries. Words are only added, never removed: a stale word
-- can at worst correct a typo towards a word that no longer finds anything.
CREATE TABLE knowledge_terms (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  term text NOT NULL,
  PRIMARY KEY (tenant_id, term)
);
CREATE INDEX knowledge_terms_trgm_idx ON knowledge_terms USING gin (term gin_trgm_ops);

-- steps maps a checklist step to the time it was first done.
CREATE TABLE knowledge_onboarding (
  tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  steps jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
