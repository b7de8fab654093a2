-- What became of a received mail's attachments: name, media type, size, whether the bot read
-- its text, and why not ({"name", "type", "size", "read", "reason"}).
ALTER TABLE email_inbound ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]'::jsonb;
