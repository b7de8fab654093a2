-- Conversations may be on every channel kind of the channel registry
-- (src/modules/channels/registry.ts); a test compares this list with the registry's.
ALTER TABLE conversations DROP CONSTRAINT IF EXISTS conversations_channel_check;
ALTER TABLE conversations ADD CONSTRAINT conversations_channel_check
  CHECK (channel IN ('api', 'webhook', 'widget', 'email', 'test', 'whatsapp', 'sms', 'voice'));
