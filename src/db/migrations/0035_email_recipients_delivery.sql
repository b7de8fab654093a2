-- Who a received mail is answered to (Reply-To's first address when there is one, else From),
-- the customer's Cc kept on the reply, the raw mail for download, and the team's second chance
-- for a skipped mail: answered anyway (the turn run once, marked forced) or sent to the inbox.
ALTER TABLE email_inbound ADD COLUMN reply_to varchar(320);
ALTER TABLE email_inbound ADD COLUMN cc_addresses jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE email_inbound ADD COLUMN raw bytea;
ALTER TABLE email_inbound ADD COLUMN second_chance varchar(20) CHECK (second_chance IN ('answered', 'inbox'));
CREATE INDEX email_inbound_search_idx ON email_inbound (tenant_id, mailbox_id, status, received_at DESC);

-- A reply's recipients as structured addresses, and what became of it: queued until the server
-- accepted it (sent), deferred with the server's words, bounced when a delivery report referring
-- to its Message-ID came back, failed when it was given up.
ALTER TABLE email_outbound ADD COLUMN to_name varchar(200);
ALTER TABLE email_outbound ADD COLUMN cc_addresses jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE email_outbound ADD COLUMN delivery_status varchar(20) NOT NULL DEFAULT 'queued'
  CHECK (delivery_status IN ('queued', 'sent', 'deferred', 'bounced', 'failed'));
ALTER TABLE email_outbound ADD COLUMN delivery_detail varchar(1000);
ALTER TABLE email_outbound ADD COLUMN delivery_at timestamptz;
CREATE INDEX email_outbound_message_idx ON email_outbound (message_id);
CREATE INDEX email_outbound_to_idx ON email_outbound (tenant_id, lower(to_address)) WHERE delivery_status = 'bounced';

-- The last error of a mailbox as a code (its words are derived from it); last_error keeps the detail.
ALTER TABLE mailboxes ADD COLUMN last_error_code varchar(50);
