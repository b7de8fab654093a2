import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import type { Ok } from '../../api/types';
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

/** A template of the inbox's choice, as the API lists it. */
export type ChannelTemplate = Ok<'/api/conversations/{id}/channel/templates', 'get'>['data'][number];

const MEDIA_WORD = { image: 'Bild', document: 'Dokument', video: 'Video' } as const;

/**
 * What the customer will read: the header (filled in, or the media's link), the body filled in,
 * the footer; a placeholder without a value stays visible as {{key}}.
 */
export function previewTemplate(template: ChannelTemplate, parameters: string[]): string {
  const fill = (text: string, part: 'header' | 'body') =>
    text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (all, key: string) => {
      const i = template.parameters.findIndex((p) => p.part === part && p.key === key);
      return (i >= 0 && parameters[i]?.trim()) || all;
    });
  const media = template.parameters.findIndex((p) => p.part === 'header' && p.key === null);
  const kind = template.parameters[media]?.kind as keyof typeof MEDIA_WORD | undefined;
  const header =
    kind && kind in MEDIA_WORD
      ? `[${MEDIA_WORD[kind]}] ${parameters[media]?.trim() ?? ''}`
      : template.header && fill(template.header, 'header');
  return [header, fill(template.body, 'body'), template.footer].filter((line) => line?.trim()).join('\n\n');
}
