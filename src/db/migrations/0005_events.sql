-- Events module: events, bookings, notifications and the ledger of payment-provider
-- deliveries (idempotency). Contacts live in 0001_core.sql.

CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid REFERENCES bots(id) ON DELETE SET NULL,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  title varchar(200) NOT NULL CHECK (length(trim(title)) > 0),
  description text,
  location varchar(500),
  image_url varchar(1000),
  event_date date NOT NULL,
  event_time_start time,
  event_time_end time,
  booking_deadline timestamptz,
  capacity_total integer NOT NULL DEFAULT 0 CHECK (capacity_total >= 0),
  capacity_booked integer NOT NULL DEFAULT 0 CHECK (capacity_booked >= 0),
  capacity_waitlist integer NOT NULL DEFAULT 0 CHECK (capacity_waitlist >= 0),
  waitlist_max integer CHECK (waitlist_max IS NULL OR waitlist_max >= 0),
  price numeric(10, 2) NOT NULL DEFAULT 0 CHECK (price >= 0),
  currency char(3) NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  payment_model varchar(20) NOT NULL DEFAULT 'free'
    CHECK (payment_model IN ('free', 'full_payment', 'deposit', 'external_link')),
  deposit_amount numeric(10, 2) CHECK (deposit_amount IS NULL OR deposit_amount >= 0),
  provider_payment_link varchar(500),
  -- The provider's id of the link, so it can be deactivated when the event ends.
  provider_payment_link_id varchar(255),
  external_payment_url varchar(1000),
  status varchar(20) NOT NULL DEFAULT 'draft'
    CHECK (status IN ('draft', 'selling', 'waitlist', 'completed', 'cancelled')),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_time_order CHECK (
    event_time_start IS NULL OR event_time_end IS NULL OR event_time_end > event_time_start),
  CONSTRAINT events_deposit_rule CHECK (
    payment_model <> 'deposit' OR (deposit_amount IS NOT NULL AND deposit_amount <= price)),
  CONSTRAINT events_external_link_rule CHECK (
    payment_model <> 'external_link' OR external_payment_url IS NOT NULL),
  -- Capacity can never be oversold, and the waitlist never outgrows its limit.
  CONSTRAINT events_capacity_fits CHECK (capacity_booked <= capacity_total),
  CONSTRAINT events_waitlist_fits CHECK (waitlist_max IS NULL OR capacity_waitlist <= waitlist_max)
);
CREATE INDEX events_tenant_date_idx ON events (tenant_id, event_date, id);
CREATE INDEX events_tenant_bot_idx ON events (tenant_id, bot_id) WHERE bot_id IS NOT NULL;

CREATE TABLE event_bookings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  -- Contacts with open bookings cannot be deleted (service rule); past bookings go with them.
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  status varchar(20) NOT NULL DEFAULT 'confirmed'
    CHECK (status IN ('confirmed', 'waitlist', 'cancelled', 'attended', 'no_show')),
  waitlist_position integer CHECK (waitlist_position IS NULL OR waitlist_position >= 1),
  payment_status varchar(20) NOT NULL DEFAULT 'not_required'
    CHECK (payment_status IN ('not_required', 'pending', 'paid', 'refunded')),
  payment_amount numeric(10, 2) CHECK (payment_amount IS NULL OR payment_amount >= 0),
  provider_payment_intent_id varchar(255),
  booking_channel varchar(20) NOT NULL DEFAULT 'manual'
    CHECK (booking_channel IN ('whatsapp', 'voice', 'email', 'manual', 'api')),
  booked_at timestamptz DEFAULT now(),
  cancelled_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A position exactly while on the waitlist.
  CONSTRAINT event_bookings_position_rule CHECK ((status = 'waitlist') = (waitlist_position IS NOT NULL)),
  -- Positions are unique per event; deferred so a renumbering UPDATE may pass through overlaps.
  CONSTRAINT event_bookings_position_unique UNIQUE (event_id, waitlist_position) DEFERRABLE INITIALLY DEFERRED
);
-- Per event, one booking per contact that is not cancelled.
CREATE UNIQUE INDEX event_bookings_one_open_per_contact
  ON event_bookings (event_id, contact_id) WHERE status <> 'cancelled';
CREATE INDEX event_bookings_tenant_event_idx ON event_bookings (tenant_id, event_id, booked_at, id);
CREATE INDEX event_bookings_contact_idx ON event_bookings (contact_id);
CREATE INDEX event_bookings_payment_intent_idx ON event_bookings (provider_payment_intent_id)
  WHERE provider_payment_intent_id IS NOT NULL;

CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  type varchar(50) NOT NULL,
  title varchar(200) NOT NULL,
  body text NOT NULL DEFAULT '',
  event_id uuid REFERENCES events(id) ON DELETE SET NULL,
  booking_id uuid REFERENCES event_bookings(id) ON DELETE SET NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  read_at timestamptz,
  -- clock_timestamp: notifications of one transaction keep the order they were written in.
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX notifications_tenant_created_idx ON notifications (tenant_id, created_at DESC, id DESC);
CREATE INDEX notifications_tenant_unread_idx ON notifications (tenant_id) WHERE read_at IS NULL;

-- Every provider delivery that changed something, once: repeated deliveries are recognised here.
CREATE TABLE payment_provider_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  provider varchar(20) NOT NULL,
  provider_event_id varchar(255) NOT NULL,
  type varchar(100) NOT NULL,
  booking_id uuid REFERENCES event_bookings(id) ON DELETE SET NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_event_id)
);
