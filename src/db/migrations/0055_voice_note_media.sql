-- A voice note's audio as the provider names it, read when a transcription provider is
-- configured: {"id": Meta's media id} or {"url": Twilio's MediaUrl0}, and its content type.
ALTER TABLE channel_inbound ADD COLUMN media jsonb;
