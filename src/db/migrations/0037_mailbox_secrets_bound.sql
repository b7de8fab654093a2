-- Mailbox secrets are sealed with their row and field as associated data (version 2). Rows
-- sealed before (purpose only) keep version 1 until the service re-seals them at start-up:
-- SQL cannot decrypt, so this migration only adds the marker. New rows are version 2.
ALTER TABLE mailboxes ADD COLUMN secrets_version smallint NOT NULL DEFAULT 1;
ALTER TABLE mailboxes ALTER COLUMN secrets_version SET DEFAULT 2;
