import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export function signMeta(raw: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

export function metaPayload(phoneNumberId: string, value: { messages?: object[]; statuses?: object[] }) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '2233445566',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '4930999999', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'Kundin' }, wa_id: '491701234567' }],
              ...value,
            },
          },
        ],
      },
    ],
  };
}

let clock = Math.floor(Date.now() / 1000);
export function textMessage(from: string, body: string, extra: object = {}) {
  clock += 1;
  return {
    from,
    id: `wamid.IN${randomUUID().replace(/-/g, '')}`,
    timestamp: String(clock),
    type: 'text',
    text: { body },
    ...extra,
  };
}

export async function postMeta(
  app: FastifyInstance,
  connectionId: string,
  payload: object | string,
  secret: string | null,
) {
  const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app.inject({
    method: 'POST',
    url: `/v1/channels/${connectionId}/webhook`,
    headers: {
      'content-type': 'application/json',
      ...(secret !== null ? { 'x-hub-signature-256': signMeta(raw, secret) } : {}),
    },
    payload: raw,
  });
}
