-- How often a worker has started on a document. A document whose processing ends the worker
-- every time (out of memory, a crash in a parser) would otherwise be taken up again after each
-- lease forever; after a few attempts it is failed in words instead.
ALTER TABLE knowledge_import_documents ADD COLUMN attempts integer NOT NULL DEFAULT 0;
