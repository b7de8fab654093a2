-- Chat: idempotency records of POST /api/bot-chat/:botId/chat.
-- One row per (tenant, Idempotency-Key): claimed while the first request runs (in_flight,
-- held for a lease), then the stored response is replayed for 24 hours.
CREATE TABLE chat_idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  idempotency_key varchar(255) NOT NULL,
  request_hash char(64) NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'in_flight' CHECK (status IN ('in_flight', 'completed')),
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- An in-flight claim whose process died is taken over after its lease.
  lease_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, idempotency_key)
);
CREATE INDEX chat_idempotency_keys_expiry_idx ON chat_idempotency_keys (tenant_id, expires_at);
