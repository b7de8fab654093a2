import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { filledTemplate } from '@server/modules/messaging/template-shape.js';
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

/**
 * What the customer will read, filled in as the service stores it (the header, or the media's
 * link, the body, the footer); a parameter not given yet stays visible as its placeholder.
 */
export function previewTemplate(template: ChannelTemplate, parameters: string[]): string {
  const slots = template.parameters.map((p) => ({
    part: p.part,
    kind: p.kind,
    key: p.key,
    button: null,
    buttonText: p.button_text,
    url: p.url,
    example: p.example,
  }));
  const shown = parameters.map((value, i) => {
    const key = slots[i]?.key;
    return value.trim() || (key ? `{{${key}}}` : '');
  });
  const { header, body, footer, unsupported } = template;
  return filledTemplate({ header, body, footer, slots, unsupported }, shown);
}
