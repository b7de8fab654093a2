-- Channel connection secrets and webhook signing secrets are sealed with their table, row and
-- field as associated data under PARLEY_SECRET_KEY (version 2), as mailbox secrets are (0037).
-- Rows sealed before (connections: purpose only; webhooks: WEBHOOK_SECRETS_KEY or plain) keep
-- version 1 until the service re-seals them at start-up: SQL cannot decrypt, so this migration
-- only adds the marker. New rows are version 2.
ALTER TABLE channel_connections ADD COLUMN secrets_version smallint NOT NULL DEFAULT 1;
ALTER TABLE channel_connections ALTER COLUMN secrets_version SET DEFAULT 2;
ALTER TABLE webhook_endpoints ADD COLUMN secrets_version smallint NOT NULL DEFAULT 1;
ALTER TABLE webhook_endpoints ALTER COLUMN secrets_version SET DEFAULT 2;
