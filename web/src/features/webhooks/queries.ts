import { useMutation, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { useRefreshingMutation } from '../../api/mutations';
import type { Ok, WebhookBody } from '../../api/types';

/** The cache keys of the webhooks feature: endpoints, their delivery logs, and dead letters. */
export const webhookKeys = {
  all: ['webhooks'] as const,
  deliveries: (endpointId: string) => ['webhooks', endpointId, 'deliveries'] as const,
  deliveryList: (endpointId: string, status: string | null) =>
    ['webhooks', endpointId, 'deliveries', status] as const,
  delivery: (endpointId: string, deliveryId: string) =>
    ['webhooks', endpointId, 'delivery', deliveryId] as const,
  dead: ['webhooks', 'dead'] as const,
};

export type Delivery = Ok<'/api/webhooks/{id}/deliveries', 'get'>['data'][number];
export type DeliveryStatus = Delivery['status'];

export function useWebhooks(enabled: boolean) {
  return useQuery({ queryKey: webhookKeys.all, queryFn: () => call(api.GET('/api/webhooks')), enabled });
}

export function useCreateWebhook() {
  return useRefreshingMutation(
    (body: { url: string; event_types: WebhookBody['event_types'] }) =>
      call(api.POST('/api/webhooks', { body })),
    webhookKeys.all,
    { exact: true },
  );
}

export function useRotateWebhookSecret() {
  return useMutation({
    mutationFn: (id: string) =>
      call(api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
  });
}

export function useDeleteWebhook() {
  return useRefreshingMutation(
    (id: string) => call(api.DELETE('/api/webhooks/{id}', { params: { path: { id } } })),
    webhookKeys.all,
    { exact: true },
  );
}

export function useDeliveries(endpointId: string, status: DeliveryStatus | null) {
  return useQuery({
    queryKey: webhookKeys.deliveryList(endpointId, status),
    queryFn: () =>
      call(
        api.GET('/api/webhooks/{id}/deliveries', {
          params: { path: { id: endpointId }, query: { limit: 50, ...(status ? { status } : {}) } },
        }),
      ),
  });
}

export function useDelivery(endpointId: string, deliveryId: string) {
  return useQuery({
    queryKey: webhookKeys.delivery(endpointId, deliveryId),
    queryFn: () =>
      call(
        api.GET('/api/webhooks/{id}/deliveries/{deliveryId}', {
          params: { path: { id: endpointId, deliveryId } },
        }),
      ),
  });
}

export function useRedeliver(endpointId: string) {
  return useRefreshingMutation(
    (deliveryId: string) =>
      call(
        api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { id: endpointId, deliveryId } },
        }),
      ),
    webhookKeys.deliveries(endpointId),
  );
}

/** Webhook messages of the outbox that ran out of attempts. */
export function useDeadLetters() {
  return useQuery({
    queryKey: webhookKeys.dead,
    queryFn: () => call(api.GET('/api/outbox/dead', { params: { query: { kind: 'webhook', limit: 50 } } })),
  });
}

/** Sends a dead message again; the dead letters and every delivery log are read anew. */
export function useResend() {
  return useRefreshingMutation(
    (id: string) => call(api.POST('/api/outbox/{id}/resend', { params: { path: { id } } })),
    webhookKeys.all,
  );
}
