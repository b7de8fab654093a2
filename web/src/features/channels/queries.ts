import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Body, Ok } from '../../api/types';
import { goLiveKey } from '../bots/queries';

export type WidgetSettings = Ok<'/api/bots/{id}/widget', 'get'>;
export type WidgetPatch = Body<'/api/bots/{id}/widget', 'put'>;

/** Cache keys of a bot's channels; a change also invalidates the bot's go-live checklist. */
export const channelKeys = {
  widget: (botId: string) => ['bot', botId, 'channels', 'widget'] as const,
  golive: goLiveKey,
};

export function useWidgetSettings(botId: string) {
  return useQuery({
    queryKey: channelKeys.widget(botId),
    queryFn: () => call(api.GET('/api/bots/{id}/widget', { params: { path: { id: botId } } })),
  });
}

function useSettingsMutation<T>(botId: string, mutationFn: (value: T) => Promise<WidgetSettings>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (settings) => {
      queryClient.setQueryData(channelKeys.widget(botId), settings);
      void queryClient.invalidateQueries({ queryKey: channelKeys.golive(botId) });
    },
  });
}

export function useUpdateWidget(botId: string) {
  return useSettingsMutation(botId, (body: WidgetPatch) =>
    call(api.PUT('/api/bots/{id}/widget', { params: { path: { id: botId } }, body })),
  );
}

/** A new publishable key: sessions of the old one end. */
export function useRotatePublishableKey(botId: string) {
  return useSettingsMutation(botId, () =>
    call(api.POST('/api/bots/{id}/widget/publishable-key', { params: { path: { id: botId } } })),
  );
}

/** A new identity secret; the result holds it this once. */
export function useRotateIdentitySecret(botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      call(api.POST('/api/bots/{id}/widget/identity-secret', { params: { path: { id: botId } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: channelKeys.widget(botId) }),
  });
}
