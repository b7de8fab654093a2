import { useMutation, useQuery, useQueryClient, type UseMutationOptions } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { authKeys } from '../auth/queries';
import type { Role } from './team-rules';

export const userKeys = {
  team: ['team'] as const,
  invitations: ['team-invitations'] as const,
  invitation: (token: string) => ['invitation', token] as const,
};

/** What a page adds to a mutation: its own notices and state, after the lists are read anew. */
type Handlers<TData, TVariables> = Omit<
  UseMutationOptions<TData, Error, TVariables>,
  'mutationFn' | 'onSettled'
>;

/** The tenant's users (at most 100); `enabled` false for those who may not list them. */
export function useTeam(enabled = true) {
  return useQuery({
    queryKey: userKeys.team,
    enabled,
    queryFn: () => call(api.GET('/api/users', { params: { query: { limit: 100 } } })),
  });
}

/** A role change or (de)activation; the signed-in user's own change reads the session anew. */
export function useChangeUser(
  userId: string,
  actorId: string,
  handlers: Handlers<Awaited<ReturnType<typeof patchUser>>, { role?: Role; is_active?: boolean }>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    ...handlers,
    mutationFn: (body: { role?: Role; is_active?: boolean }) => patchUser(userId, body),
    onSuccess: (updated, body, ...rest) => {
      void queryClient.invalidateQueries({ queryKey: userKeys.team });
      if (updated.id === actorId) void queryClient.invalidateQueries({ queryKey: authKeys.me });
      return handlers.onSuccess?.(updated, body, ...rest);
    },
  });
}

function patchUser(id: string, body: { role?: Role; is_active?: boolean }) {
  return call(api.PATCH('/api/users/{id}', { params: { path: { id } }, body }));
}

export function useChangeOwnPassword(handlers: Handlers<unknown, { current: string; next: string }>) {
  return useMutation({
    ...handlers,
    mutationFn: (values: { current: string; next: string }) =>
      call(
        api.POST('/api/me/password', {
          body: { current_password: values.current, new_password: values.next },
        }),
      ),
  });
}

export function useInvitations() {
  return useQuery({
    queryKey: userKeys.invitations,
    queryFn: () => call(api.GET('/api/invitations', { params: { query: { limit: 100 } } })),
  });
}

function useInvitationMutation<TData, TVariables>(
  mutationFn: (variables: TVariables) => Promise<TData>,
  handlers: Handlers<TData, TVariables>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    ...handlers,
    mutationFn,
    // Refused or not, the list shows the invitations as they are now.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: userKeys.invitations }),
  });
}

export function useCreateInvitation(
  handlers: Handlers<Awaited<ReturnType<typeof createInvitation>>, { email: string; role: Role }>,
) {
  return useInvitationMutation(createInvitation, handlers);
}

function createInvitation(body: { email: string; role: Role }) {
  return call(api.POST('/api/invitations', { body }));
}

export function useResendInvitation(
  invitationId: string,
  handlers: Handlers<Awaited<ReturnType<typeof resendInvitation>>, void>,
) {
  return useInvitationMutation(() => resendInvitation(invitationId), handlers);
}

function resendInvitation(id: string) {
  return call(api.POST('/api/invitations/{id}/resend', { params: { path: { id } } }));
}

export function useRevokeInvitation(invitationId: string, handlers: Handlers<unknown, void>) {
  return useInvitationMutation(
    () => call(api.DELETE('/api/invitations/{id}', { params: { path: { id: invitationId } } })),
    handlers,
  );
}

/** What an invitation link offers (who invites, for which role); a used or expired link is an error. */
export function useInvitationPreview(token: string) {
  return useQuery({
    queryKey: userKeys.invitation(token),
    queryFn: () => call(api.POST('/api/invitations/preview', { body: { token } })),
    enabled: token !== '',
    retry: false,
  });
}

export function useAcceptInvitation(token: string) {
  return useMutation({
    mutationFn: (values: { first_name: string; last_name: string; password: string }) =>
      call(
        api.POST('/api/invitations/accept', {
          body: {
            token,
            password: values.password,
            ...(values.first_name.trim() ? { first_name: values.first_name.trim() } : {}),
            ...(values.last_name.trim() ? { last_name: values.last_name.trim() } : {}),
          },
        }),
      ),
  });
}

export interface ProfileChange {
  first_name: string | null;
  last_name: string | null;
  avatar_url: string | null;
}

/** The signed-in user's own name and picture; the session is read anew. */
export function useChangeOwnProfile(handlers: Handlers<unknown, ProfileChange>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...handlers,
    mutationFn: (body: ProfileChange) => call(api.PATCH('/api/me', { body })),
    onSuccess: (...args) => {
      void queryClient.invalidateQueries({ queryKey: authKeys.me });
      return handlers.onSuccess?.(...args);
    },
  });
}
