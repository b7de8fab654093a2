-- Corpus statistics for BM25 ranking, kept up to date by triggers in the transaction that
-- writes or deletes chunks (also when chunks go with a deleted entry, bot or tenant).
--
-- A corpus is what one search covers: a bot's entries plus the tenant-wide entries. Statistics
-- are kept per scope (scope_id = the bot, or the tenant itself for tenant-wide entries) and a
-- search adds the two scopes it covers.

-- Tokens of the chunk (title and text, without the code variants of weight C): BM25's length.
ALTER TABLE knowledge_chunks ADD COLUMN doc_length integer NOT NULL DEFAULT 0;

-- In how many chunks of a scope a lexeme occurs (document frequency).
CREATE TABLE knowledge_term_stats (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  scope_id uuid NOT NULL,
  lexeme text NOT NULL,
  chunks integer NOT NULL,
  PRIMARY KEY (tenant_id, scope_id, lexeme)
);

-- Chunks and their summed length per scope (for N and the average length).
CREATE TABLE knowledge_corpus_stats (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  scope_id uuid NOT NULL,
  chunks integer NOT NULL,
  total_length bigint NOT NULL,
  PRIMARY KEY (tenant_id, scope_id)
);

CREATE FUNCTION knowledge_chunk_length() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.doc_length := coalesce((SELECT sum(cardinality(array_remove(u.weights, 'C')))
                              FROM unnest(NEW.tsv) AS u), 0);
  RETURN NEW;
END $$;

CREATE TRIGGER knowledge_chunks_length BEFORE INSERT ON knowledge_chunks
  FOR EACH ROW EXECUTE FUNCTION knowledge_chunk_length();

-- Rows are added and removed in lexeme order, so two writers of one scope lock them in the
-- same order and wait for each other instead of deadlocking.
CREATE FUNCTION knowledge_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO knowledge_term_stats AS s (tenant_id, scope_id, lexeme, chunks)
  SELECT n.tenant_id, coalesce(n.bot_id, n.tenant_id), l.lexeme, count(*)
  FROM added n CROSS JOIN LATERAL unnest(tsvector_to_array(n.tsv)) AS l(lexeme)
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, scope_id, lexeme) DO UPDATE SET chunks = s.chunks + excluded.chunks;
  INSERT INTO knowledge_corpus_stats AS s (tenant_id, scope_id, chunks, total_length)
  SELECT n.tenant_id, coalesce(n.bot_id, n.tenant_id), count(*), sum(n.doc_length)
  FROM added n GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (tenant_id, scope_id) DO UPDATE
  SET chunks = s.chunks + excluded.chunks, total_length = s.total_length + excluded.total_length;
  RETURN NULL;
END $$;

CREATE FUNCTION knowledge_chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH gone AS (
    SELECT o.tenant_id, coalesce(o.bot_id, o.tenant_id) AS scope_id, l.lexeme, count(*) AS n
    FROM removed o CROSS JOIN LATERAL unnest(tsvector_to_array(o.tsv)) AS l(lexeme)
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  )
  UPDATE knowledge_term_stats s SET chunks = s.chunks - g.n
  FROM gone g WHERE s.tenant_id = g.tenant_id AND s.scope_id = g.scope_id AND s.lexeme = g.lexeme;
  DELETE FROM knowledge_term_stats s
  USING (SELECT DISTINCT tenant_id, coalesce(bot_id, tenant_id) AS scope_id FROM removed) r
  WHERE s.tenant_id = r.tenant_id AND s.scope_id = r.scope_id AND s.chunks <= 0;
  UPDATE knowledge_corpus_stats s SET chunks = s.chunks - g.n, total_length = s.total_length - g.len
  FROM (SELECT tenant_id, coalesce(bot_id, tenant_id) AS scope_id, count(*) AS n, sum(doc_length) AS len
        FROM removed GROUP BY 1, 2) g
  WHERE s.tenant_id = g.tenant_id AND s.scope_id = g.scope_id;
  RETURN NULL;
END $$;

CREATE TRIGGER knowledge_chunks_stats_insert AFTER INSERT ON knowledge_chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunks_added();
CREATE TRIGGER knowledge_chunks_stats_delete AFTER DELETE ON knowledge_chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunks_removed();

-- Chunks written before this migration.
UPDATE knowledge_chunks c
SET doc_length = coalesce((SELECT sum(cardinality(u.weights)) FROM unnest(c.tsv) AS u), 0);
INSERT INTO knowledge_term_stats (tenant_id, scope_id, lexeme, chunks)
SELECT c.tenant_id, coalesce(c.bot_id, c.tenant_id), l.lexeme, count(*)
FROM knowledge_chunks c CROSS JOIN LATERAL unnest(tsvector_to_array(c.tsv)) AS l(lexeme)
GROUP BY 1, 2, 3;
INSERT INTO knowledge_corpus_stats (tenant_id, scope_id, chunks, total_length)
SELECT tenant_id, coalesce(bot_id, tenant_id), count(*), sum(doc_length)
FROM knowledge_chunks GROUP BY 1, 2;
