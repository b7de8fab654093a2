-- Uploaded files of document imports as raw bytes in parts of at most 1 MB instead of one
-- base64 text per document: the service writes a file part by part from its temporary upload
-- file and the import worker reads it back part by part into a file for the parser process,
-- so no whole file (let alone its base64 text) is ever held in the service's memory. The
-- parts of a document are deleted once it is processed.
CREATE TABLE knowledge_import_document_parts (
  document_id uuid NOT NULL REFERENCES knowledge_import_documents(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  part integer NOT NULL CHECK (part >= 0),
  bytes bytea NOT NULL,
  PRIMARY KEY (document_id, part)
);

-- Files still waiting: their base64 content becomes parts.
INSERT INTO knowledge_import_document_parts (document_id, tenant_id, part, bytes)
SELECT d.id, d.tenant_id, p.n, substring(d.raw FROM p.n * 1048576 + 1 FOR 1048576)
FROM (
  SELECT id, tenant_id, decode(content, 'base64') AS raw FROM knowledge_import_documents
  WHERE content IS NOT NULL AND content <> ''
) d
CROSS JOIN LATERAL generate_series(0, (octet_length(d.raw) - 1) / 1048576) AS p(n);
CREATE INDEX knowledge_import_document_parts_tenant_idx ON knowledge_import_document_parts (tenant_id);

ALTER TABLE knowledge_import_documents DROP COLUMN content;
