import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Body, Ok } from '../../api/types';
import { useRefreshingMutation } from '../../api/mutations';

export type Connection = Ok<'/api/bots/{id}/connections/{connectionId}', 'get'>;
export type ConnectionBody = Body<'/api/bots/{id}/connections', 'post'>;
export type ConnectionPatch = Body<'/api/bots/{id}/connections/{connectionId}', 'patch'>;

/** Everything of a bot's phone and messaging connections lies under one key. */
export const connectionKeys = { all: (botId: string) => ['connections', botId] as const };

export function useConnections(botId: string) {
  return useQuery({
    queryKey: connectionKeys.all(botId),
    queryFn: async () =>
      (await call(api.GET('/api/bots/{id}/connections', { params: { path: { id: botId } } }))).data,
  });
}

export function useSaveConnection(botId: string) {
  return useRefreshingMutation(
    (input: { id: string; patch: ConnectionPatch } | { id?: undefined; body: ConnectionBody }) =>
      'patch' in input
        ? call(
            api.PATCH('/api/bots/{id}/connections/{connectionId}', {
              params: { path: { id: botId, connectionId: input.id } },
              body: input.patch,
            }),
          )
        : call(api.POST('/api/bots/{id}/connections', { params: { path: { id: botId } }, body: input.body })),
    connectionKeys.all(botId),
  );
}

export function useDeleteConnection(botId: string) {
  return useRefreshingMutation(
    (connectionId: string) =>
      call(
        api.DELETE('/api/bots/{id}/connections/{connectionId}', {
          params: { path: { id: botId, connectionId } },
        }),
      ),
    connectionKeys.all(botId),
  );
}

/** A WhatsApp connection's templates as last read from Meta or Twilio. */
export function useConnectionTemplates(botId: string, connectionId: string) {
  return useQuery({
    queryKey: [...connectionKeys.all(botId), connectionId, 'templates'],
    queryFn: async () =>
      (
        await call(
          api.GET('/api/bots/{id}/connections/{connectionId}/templates', {
            params: { path: { id: botId, connectionId } },
          }),
        )
      ).data,
  });
}

/** Reads the templates from the provider anew (the connection's health may change with it). */
export function useRefreshTemplates(botId: string, connectionId: string) {
  return useRefreshingMutation(
    () =>
      call(
        api.POST('/api/bots/{id}/connections/{connectionId}/templates/refresh', {
          params: { path: { id: botId, connectionId } },
        }),
      ),
    connectionKeys.all(botId),
  );
}
