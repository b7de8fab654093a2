-- A user's picture, shown to widget visitors next to the person's name on their replies: an
-- https address (the image stays where it is hosted; nothing is uploaded). Null: no picture.
ALTER TABLE users ADD COLUMN avatar_url varchar(2000) CHECK (avatar_url ~ '^https://');

-- Unread is per user since inbox_reads (0040); the conversation-wide mark is no longer read.
ALTER TABLE conversations DROP COLUMN inbox_read_at;
