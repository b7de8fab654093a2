import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';

/** What the contact form sends: empty fields as null. */
export interface ContactBody {
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** The cache keys of the contacts feature; everything of one contact starts with its key. */
export const contactKeys = {
  all: ['contacts'] as const,
  /** The list (or the merge dialog's candidates), searched by `q`. */
  search: (q: string, limit: number) => ['contacts', 'search', q, limit] as const,
  detail: (id: string) => ['contact', id] as const,
  bookings: (id: string) => ['contact', id, 'bookings'] as const,
  leads: (id: string) => ['contact', id, 'leads'] as const,
  conversations: (id: string) => ['contact', id, 'conversations'] as const,
};

/** Contacts matching a search (all when `q` is empty), at most `limit`. */
export function useContacts(q: string, limit: number, enabled = true) {
  return useQuery({
    queryKey: contactKeys.search(q, limit),
    enabled,
    queryFn: () => call(api.GET('/api/contacts', { params: { query: { limit, ...(q ? { q } : {}) } } })),
  });
}

export function useContact(id: string) {
  return useQuery({
    queryKey: contactKeys.detail(id),
    queryFn: () => call(api.GET('/api/contacts/{id}', { params: { path: { id } } })),
  });
}

export function useContactBookings(id: string) {
  return useQuery({
    queryKey: contactKeys.bookings(id),
    queryFn: () =>
      call(api.GET('/api/contacts/{id}/bookings', { params: { path: { id }, query: { limit: 100 } } })),
  });
}

export function useContactLeads(id: string) {
  return useQuery({
    queryKey: contactKeys.leads(id),
    queryFn: () =>
      call(api.GET('/api/contacts/{id}/leads', { params: { path: { id }, query: { limit: 100 } } })),
  });
}

/** The person's conversations on every channel. */
export function useContactConversations(id: string) {
  return useQuery({
    queryKey: contactKeys.conversations(id),
    queryFn: () => call(api.GET('/api/contacts/{id}/conversations', { params: { path: { id } } })),
  });
}

/** A contact entered by hand. */
export function useCreateContact(onCreated: (contact: { id: string }) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ContactBody) =>
      call(api.POST('/api/contacts', { body: { ...body, channel: 'manual' } })),
    onSuccess: (contact) => {
      void queryClient.invalidateQueries({ queryKey: contactKeys.all });
      onCreated(contact);
    },
  });
}

/*
 * Editing and merging change what other pages show of the person (bookings, conversations,
 * the inbox's names): every query is read anew.
 */
export function useEditContact(id: string, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ContactBody) =>
      call(api.PUT('/api/contacts/{id}', { params: { path: { id } }, body })),
    onSuccess: () => {
      onDone();
      void queryClient.invalidateQueries();
    },
  });
}

/** Merges the contact `source` into contact `id`. */
export function useMergeContact(id: string, onDone: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: string) =>
      call(api.POST('/api/contacts/{id}/merge', { params: { path: { id } }, body: { contact_id: source } })),
    onSuccess: () => {
      onDone();
      void queryClient.invalidateQueries();
    },
  });
}

/** The person's data as a JSON download. */
export function useExportContact(id: string) {
  return useMutation({
    mutationFn: () => call(api.GET('/api/contacts/{id}/export', { params: { path: { id } } })),
    onSuccess: (data) => {
      const url = URL.createObjectURL(
        new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }),
      );
      const a = document.createElement('a');
      a.href = url;
      a.download = `contact-${id}.json`;
      a.click();
      URL.revokeObjectURL(url);
    },
  });
}

export function useEraseContact(id: string, onErased: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/contacts/{id}/erase', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: contactKeys.detail(id) });
      void queryClient.invalidateQueries({ queryKey: contactKeys.all });
      onErased();
    },
  });
}
