-- Unread per person: each colleague's own last look at a conversation of the inbox. A customer
-- message newer than the user's mark is unread for that user only; opening a conversation
-- clears nobody else's mark. (conversations.inbox_read_at stays for older readers, unused.)
CREATE TABLE inbox_reads (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX inbox_reads_user_idx ON inbox_reads (tenant_id, user_id);

-- Marks given so far count for the one who had read (the assignee or the first reader).
INSERT INTO inbox_reads (tenant_id, conversation_id, user_id, read_at)
SELECT c.tenant_id, c.id, c.assigned_user_id, c.inbox_read_at FROM conversations c
WHERE c.inbox_read_at IS NOT NULL AND c.assigned_user_id IS NOT NULL;
