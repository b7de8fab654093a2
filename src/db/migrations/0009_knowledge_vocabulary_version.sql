-- Grows whenever words are added to the tenant's typo vocabulary (knowledge_terms). The chat
-- reads it with the bot, so resolved query words can be cached per vocabulary version: a cached
-- resolution is never used once the vocabulary has changed, on any instance.
ALTER TABLE tenants ADD COLUMN knowledge_vocabulary_version bigint NOT NULL DEFAULT 0;
