import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, call } from '../../api/client';

/** Query keys of the inbox: the list, a conversation and the unread count all start with it. */
export const INBOX_KEY = ['inbox'] as const;

/** Whether the browser may show notifications and the user allowed them. */
export function notificationsAllowed(): boolean {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted';
}

/**
 * Keeps the inbox live while the dashboard is open: the server's event stream (`GET
 * /api/inbox/stream`, the session cookie) makes every inbox query reload when something changes;
 * a conversation newly waiting shows a browser notification when the user allowed them and the
 * tab is in the background. EventSource reconnects by itself; after a reconnect (and on
 * `resync`) everything reloads.
 */
export function useInboxLive(enabled: boolean, notificationText: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/inbox/stream', { withCredentials: true });
    const reload = () => void queryClient.invalidateQueries({ queryKey: INBOX_KEY });
    const onInbox = (event: MessageEvent<string>) => {
      reload();
      try {
        const data = JSON.parse(event.data) as { status?: string };
        if (data.status === 'waiting' && notificationsAllowed() && document.hidden) {
          new Notification('Parley', { body: notificationText });
        }
      } catch {
        // not JSON: nothing to announce
      }
    };
    source.addEventListener('inbox', onInbox);
    source.addEventListener('message', reload);
    source.addEventListener('resync', reload);
    source.addEventListener('ready', reload);
    return () => source.close();
  }, [enabled, notificationText, queryClient]);
}

/** Unread conversations for the navigation's badge (kept fresh by the live stream). */
export function useInboxUnread(enabled: boolean) {
  return useQuery({
    queryKey: [...INBOX_KEY, 'unread'],
    queryFn: () => call(api.GET('/api/inbox/unread')),
    enabled,
    refetchInterval: 60_000,
  });
}
