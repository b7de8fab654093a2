import type { Database } from '../../db/database.js';
import {
  findBookingByPaymentIntent,
  findBookingForProvider,
  markBookingPaid,
  markBookingRefunded,
  recordProviderEvent,
  type BookingRow,
} from './bookings/repository.js';
import type { ProviderNotice } from './payments.js';
import { lockEvent } from './repository.js';
import { signalPayment } from './signals.js';

export type NoticeResult = 'processed' | 'duplicate' | 'ignored';

async function bookingOf(db: Database, notice: ProviderNotice): Promise<BookingRow | undefined> {
  if (notice.kind === 'paid') {
    if (!notice.bookingId) return undefined;
    const booking = await findBookingForProvider(db, notice.bookingId);
    // The link's metadata names the tenant: a session of another tenant's link is not ours to apply.
    if (booking && notice.tenantId && booking.tenant_id !== notice.tenantId) return undefined;
    return booking;
  }
  if (notice.kind === 'refunded' && notice.paymentIntentId) {
    return findBookingByPaymentIntent(db, notice.paymentIntentId);
  }
  return undefined;
}

/**
 * Applies a verified provider delivery to its booking, once: the delivery's id is recorded in
 * the same transaction as the change, so a repeated delivery changes nothing.
 */
export async function applyProviderNotice(db: Database, notice: ProviderNotice): Promise<NoticeResult> {
  if (notice.kind === 'ignored') return 'ignored';
  const found = await bookingOf(db, notice);
  if (!found) return 'ignored';
  const tenantId = found.tenant_id;
  return db.transaction(async (tx) => {
    const event = await lockEvent(tx, tenantId, found.event_id);
    if (!event) return 'ignored';
    const first = await recordProviderEvent(tx, tenantId, {
      provider: 'stripe',
      eventId: notice.eventId,
      type: notice.type,
      bookingId: found.id,
    });
    if (!first) return 'duplicate';
    const updated =
      notice.kind === 'paid'
        ? await markBookingPaid(tx, tenantId, found.id, {
            paymentIntentId: notice.paymentIntentId,
            amount: notice.amount,
          })
        : await markBookingRefunded(tx, tenantId, found.id);
    if (updated) await signalPayment(tx, notice.kind, event, updated);
    return 'processed';
  });
}
