import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { inboxKeys } from './queries';

/** A WhatsApp/SMS conversation's window, opt-out and delivery statuses. */
export function useChannelState(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...inboxKeys.conversation(id), 'channel'],
    queryFn: () => call(api.GET('/api/conversations/{id}/channel', { params: { path: { id } } })),
    enabled,
    refetchInterval: 60_000,
  });
}

/** The approved templates of the conversation's WhatsApp connection. */
export function useConversationTemplates(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...inboxKeys.conversation(id), 'templates'],
    queryFn: () => call(api.GET('/api/conversations/{id}/channel/templates', { params: { path: { id } } })),
    enabled,
  });
}

export interface TemplateSend {
  name: string;
  language: string;
  parameters: string[];
}

/** Sends an approved template into the conversation (the inbox is read anew either way). */
export function useSendTemplate(
  id: string,
  handlers: { onSuccess: () => void; onError: (e: unknown) => void },
) {
  const queryClient = useQueryClient();
  const reload = () => void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
  return useMutation({
    mutationFn: (body: TemplateSend) =>
      call(api.POST('/api/inbox/{id}/template', { params: { path: { id } }, body })),
    onSuccess: () => {
      handlers.onSuccess();
      reload();
    },
    onError: (error) => {
      handlers.onError(error);
      reload();
    },
  });
}

/** The body with {{n}} replaced by the n-th parameter (empty ones stay visible as {{n}}). */
export function previewBody(body: string, parameters: string[]): string {
  return body.replace(/\{\{\s*(\d+)\s*\}\}/g, (all, n: string) => parameters[Number(n) - 1]?.trim() || all);
}
