import type { BookingStatus } from '@server/modules/events/bookings/status.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Body, BookingWithContact, EventBody, EventDetail, EventRow } from '../../api/types';
import { useRefreshingMutation } from '../../api/mutations';
import type { paths } from '../../api/schema';

type EventsQuery = NonNullable<paths['/api/events']['get']['parameters']['query']>;

/**
 * The cache keys of events: everything of one event (its detail, bookings and notifications)
 * lies under `one(id)`, so a change to it is one invalidation; lists under `lists`.
 */
export const eventKeys = {
  all: ['events'] as const,
  lists: ['events', 'list'] as const,
  list: (query: EventsQuery) => ['events', 'list', query] as const,
  one: (id: string) => ['events', id] as const,
  detail: (id: string) => ['events', id, 'detail'] as const,
  bookings: (id: string) => ['events', id, 'bookings'] as const,
  notifications: (id: string) => ['events', id, 'notifications'] as const,
};

export function useEvents(query: EventsQuery) {
  return useQuery({
    queryKey: eventKeys.list(query),
    queryFn: () => call(api.GET('/api/events', { params: { query } })),
  });
}

export function useEvent(id: string) {
  return useQuery({
    queryKey: eventKeys.detail(id),
    queryFn: async () =>
      (await call(api.GET('/api/events/{id}', { params: { path: { id } } }))) as EventDetail,
  });
}

export function useBookings(eventId: string) {
  return useQuery({
    queryKey: eventKeys.bookings(eventId),
    queryFn: async () =>
      (
        await call(
          api.GET('/api/events/{id}/bookings', { params: { path: { id: eventId }, query: { limit: 100 } } }),
        )
      ).data as BookingWithContact[],
  });
}

export function useEventNotifications(eventId: string) {
  return useQuery({
    queryKey: eventKeys.notifications(eventId),
    queryFn: () =>
      call(api.GET('/api/notifications', { params: { query: { event_id: eventId, limit: 50 } } })),
  });
}

/** After a change to an event or its bookings: that event and every list are read anew. */
export function useEventChanged() {
  const queryClient = useQueryClient();
  return (eventId: string) => {
    void queryClient.invalidateQueries({ queryKey: eventKeys.one(eventId) });
    void queryClient.invalidateQueries({ queryKey: eventKeys.lists });
  };
}

export function useCreateEvent() {
  return useRefreshingMutation((body: EventBody) => call(api.POST('/api/events', { body })), eventKeys.lists);
}

export function useUpdateEvent(eventId: string) {
  const changed = useEventChanged();
  return useMutation({
    mutationFn: (body: Body<'/api/events/{id}', 'put'>) =>
      call(api.PUT('/api/events/{id}', { params: { path: { id: eventId } }, body })),
    onSuccess: () => changed(eventId),
  });
}

export function useChangeEventStatus(eventId: string) {
  const changed = useEventChanged();
  return useMutation({
    mutationFn: (status: EventRow['status']) =>
      call(api.PATCH('/api/events/{id}/status', { params: { path: { id: eventId } }, body: { status } })),
    onSuccess: () => changed(eventId),
  });
}

/** A booking for a new contact of that name, entered by hand. */
export function useAddBooking(eventId: string) {
  const changed = useEventChanged();
  return useMutation({
    /**
     * With an e-mail address or phone number the existing contact is found (one contact per
     * address and number); a name alone makes a new contact.
     */
    mutationFn: async (person: { name: string; email?: string; phone?: string }) => {
      const body = {
        name: person.name || null,
        email: person.email || null,
        phone: person.phone || null,
        channel: 'manual' as const,
      };
      const contact =
        body.email || body.phone
          ? await call(api.POST('/api/contacts/resolve', { body }))
          : await call(api.POST('/api/contacts', { body: { name: person.name, channel: 'manual' } }));
      return call(
        api.POST('/api/events/{id}/bookings', {
          params: { path: { id: eventId } },
          body: { contact_id: contact.id },
        }),
      );
    },
    onSuccess: () => changed(eventId),
  });
}

export function useCancelBooking(eventId: string, bookingId: string) {
  const changed = useEventChanged();
  return useMutation({
    mutationFn: () =>
      call(
        api.DELETE('/api/events/{eventId}/bookings/{bookingId}', {
          params: { path: { eventId, bookingId } },
        }),
      ),
    onSuccess: () => changed(eventId),
  });
}

export function useSetBookingStatus(eventId: string, bookingId: string) {
  const changed = useEventChanged();
  return useMutation({
    mutationFn: (status: BookingStatus) =>
      call(
        api.PATCH('/api/events/{eventId}/bookings/{bookingId}/status', {
          params: { path: { eventId, bookingId } },
          body: { status },
        }),
      ),
    onSuccess: () => changed(eventId),
  });
}

export function useMarkNotificationRead(eventId: string) {
  return useRefreshingMutation(
    (id: string) => call(api.POST('/api/notifications/{id}/read', { params: { path: { id } } })),
    eventKeys.notifications(eventId),
  );
}
