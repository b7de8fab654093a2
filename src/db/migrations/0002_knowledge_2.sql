-- The knowledge base is read on every chat message and written rarely. GIN's pending list
-- (fastupdate) makes each search scan the unmerged entries linearly and hides the index from
-- the planner until a vacuum merges them; PGlite runs no autovacuum at all. Entries are
-- therefore written straight into both GIN indexes.
ALTER INDEX knowledge_chunks_tsv_idx SET (fastupdate = off);
ALTER INDEX knowledge_terms_trgm_idx SET (fastupdate = off);
