-- An entry stored while the embeddings endpoint failed has chunks without vectors; the flag
-- shows it and lets the background backfill find such entries once the endpoint is back.
ALTER TABLE knowledge_entries ADD COLUMN vectors_missing boolean NOT NULL DEFAULT false;
CREATE INDEX knowledge_entries_vectors_missing_idx ON knowledge_entries (created_at) WHERE vectors_missing;
