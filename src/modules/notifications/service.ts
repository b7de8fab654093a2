import type { Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import { listNotifications, markNotificationRead, type NotificationRow } from './repository.js';

const NOTIFICATION_LIST = 'notifications';

export function serializeNotification(n: NotificationRow) {
  return {
    id: n.id,
    type: n.type,
    title: n.title,
    body: n.body,
    event_id: n.event_id,
    booking_id: n.booking_id,
    data: n.data,
    read_at: n.read_at ? n.read_at.toISOString() : null,
    created_at: n.created_at.toISOString(),
  };
}

export async function listNotificationsPage(
  db: Queryable,
  tenantId: string,
  query: { limit?: number; cursor?: string; unread?: boolean; event_id?: string },
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listNotifications(db, tenantId, {
    unread: query.unread,
    eventId: query.event_id,
    limit,
    after: decodeTimeCursor(NOTIFICATION_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(NOTIFICATION_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeNotification), next_cursor: page.next_cursor };
}

export async function readNotification(db: Queryable, tenantId: string, notificationId: string) {
  const row = await markNotificationRead(db, tenantId, notificationId);
  if (!row) throw notFound('Notification');
  return serializeNotification(row);
}
