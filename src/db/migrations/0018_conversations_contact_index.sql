-- A contact's linked conversations (GET /api/contacts/:id/leads, newest first) and the
-- ON DELETE SET NULL of a deleted contact find their rows through this index instead of
-- reading every conversation. Most conversations have no contact, so only linked ones are in it.
CREATE INDEX conversations_contact_idx ON conversations (contact_id, created_at DESC, id DESC)
  WHERE contact_id IS NOT NULL;
