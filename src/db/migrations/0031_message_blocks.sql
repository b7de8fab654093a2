-- The interactive blocks (buttons, a list) a bot reply showed, so a transcript can show them
-- again (the widget after a reload); null when the reply had none.
ALTER TABLE messages ADD COLUMN blocks jsonb CHECK (blocks IS NULL OR jsonb_typeof(blocks) = 'array');
