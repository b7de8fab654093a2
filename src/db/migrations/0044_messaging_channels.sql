-- Conversations that came in by WhatsApp or SMS.
ALTER TABLE conversations DROP CONSTRAINT IF EXISTS conversations_channel_check;
ALTER TABLE conversations ADD CONSTRAINT conversations_channel_check
  CHECK (channel IN ('api', 'webhook', 'widget', 'email', 'test', 'whatsapp', 'sms', 'voice'));
