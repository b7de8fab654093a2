import type { Ok } from '../../api/types';
import { formatMoney } from '../../format';

export type Notification = Ok<'/api/notifications', 'get'>['data'][number];
type T = (key: string, params?: Record<string, unknown>) => string;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * A notification in the reader's language, built from its type and data (the stored title is
 * English): status changes name both states, payments their amount.
 */
export function describeNotification(n: Pick<Notification, 'type' | 'data'>, t: T, language: string): string {
  const data = n.data;
  switch (n.type) {
    case 'event.status_changed': {
      const from = str(data.from);
      const to = str(data.to);
      if (!from || !to) return t('events.notes.statusChangedPlain');
      return t(data.automatic === true ? 'events.notes.statusChangedAuto' : 'events.notes.statusChanged', {
        from: t(`events.statuses.${from}`),
        to: t(`events.statuses.${to}`),
      });
    }
    case 'booking.created':
      return t(data.status === 'waitlist' ? 'events.notes.waitlistEntry' : 'events.notes.bookingCreated');
    case 'booking.cancelled':
      return t('events.notes.bookingCancelled');
    case 'booking.promoted':
      return t('events.notes.bookingPromoted');
    case 'booking.status_changed': {
      const from = str(data.from);
      const to = str(data.to);
      if (!from || !to) return t('events.notes.bookingStatusPlain');
      return t('events.notes.bookingStatus', {
        from: t(`events.bookingStatuses.${from}`),
        to: t(`events.bookingStatuses.${to}`),
      });
    }
    case 'payment.succeeded':
    case 'payment.refunded': {
      const amount = typeof data.amount === 'number' ? data.amount : null;
      const currency = str(data.currency) ?? 'EUR';
      const money = amount === null ? '' : formatMoney(amount, currency, language);
      return t(
        n.type === 'payment.succeeded' ? 'events.notes.paymentReceived' : 'events.notes.paymentRefunded',
        {
          amount: money,
        },
      ).trim();
    }
  }
}
