-- Listing support for /v1 and the dashboard: integrations look up the conversations of one
-- sender (a CRM contact, a mailbox address) newest first, which the tenant-wide index would
-- answer only by scanning every conversation of the tenant.
CREATE INDEX conversations_tenant_sender_created_idx
  ON conversations (tenant_id, sender_id, created_at DESC, id DESC)
  WHERE sender_id IS NOT NULL;
