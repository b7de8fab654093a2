-- What a template send fills (header, body, URL buttons) is computed from the provider's stored
-- components whenever it is needed, so the body's stored placeholder count is no longer read.
ALTER TABLE channel_templates DROP COLUMN parameter_count;
