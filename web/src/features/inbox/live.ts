import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { inboxKeys } from './queries';

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
    const reload = () => void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
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
    // A guard refused a customer's message: the timeline shows it.
    source.addEventListener('refusal', reload);
    source.addEventListener('resync', reload);
    source.addEventListener('ready', reload);
    return () => source.close();
  }, [enabled, notificationText, queryClient]);
}
