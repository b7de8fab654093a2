import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';

/** Dashboard notifications: one record per noteworthy change of an event, booking or payment. */
export const NOTIFICATION_TYPES = [
  'event.status_changed',
  'booking.created',
  'booking.cancelled',
  'booking.promoted',
  'booking.status_changed',
  'payment.succeeded',
  'payment.refunded',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NotificationRow {
  id: string;
  tenant_id: string;
  type: NotificationType;
  title: string;
  body: string;
  event_id: string | null;
  booking_id: string | null;
  data: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

export interface NewNotification {
  type: NotificationType;
  title: string;
  body?: string;
  eventId?: string | null;
  bookingId?: string | null;
  data?: object;
}

/** Records a notification inside the caller's transaction, so it exists exactly when the change does. */
export async function insertNotification(
  tx: Queryable,
  tenantId: string,
  input: NewNotification,
): Promise<void> {
  await tx.query(
    `INSERT INTO notifications (tenant_id, type, title, body, event_id, booking_id, data)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [
      tenantId,
      input.type,
      input.title.slice(0, 200),
      input.body ?? '',
      input.eventId ?? null,
      input.bookingId ?? null,
      JSON.stringify(input.data ?? {}),
    ],
  );
}

export interface NotificationFilter {
  unread?: boolean;
  eventId?: string;
  limit: number;
  after?: TimeCursor;
}

export function listNotifications(
  db: Queryable,
  tenantId: string,
  filter: NotificationFilter,
): Promise<(NotificationRow & { cursor_at: string })[]> {
  const params: unknown[] = [tenantId];
  const where = ['tenant_id = $1'];
  if (filter.unread === true) where.push('read_at IS NULL');
  if (filter.unread === false) where.push('read_at IS NOT NULL');
  if (filter.eventId) {
    params.push(filter.eventId);
    where.push(`event_id = $${params.length}`);
  }
  if (filter.after) {
    params.push(filter.after.at, filter.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(filter.limit + 1);
  return db.query(
    `SELECT *, ${cursorTimestampSql('created_at')} AS cursor_at FROM notifications
     WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/** Marks a notification read; reading it again keeps the first read time. */
export function markNotificationRead(
  db: Queryable,
  tenantId: string,
  notificationId: string,
): Promise<NotificationRow | undefined> {
  if (!isUuid(notificationId)) return Promise.resolve(undefined);
  return queryOne<NotificationRow>(
    db,
    `UPDATE notifications SET read_at = coalesce(read_at, now())
     WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, notificationId],
  );
}
