/**
 * The payment provider: Stripe, through the official SDK. Host, port and protocol come from
 * the configuration, so tests (and proxies) can point it at another server.
 */
import type Stripe from 'stripe';
import { lazy } from '../../lazy.js';
import type { Config } from '../../config.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { minorUnits } from './event-rules.js';

export interface PaymentLinkRequest {
  tenantId: string;
  eventId: string;
  title: string;
  amount: number;
  currency: string;
  /** Same key for the same request: a retry after a lost answer creates no second link. */
  idempotencyKey: string;
}

export interface PaymentLink {
  id: string;
  url: string;
}

/** A verified provider delivery, reduced to what bookings need. */
export type ProviderNotice =
  | {
      kind: 'paid';
      eventId: string;
      type: string;
      bookingId: string | null;
      tenantId: string | null;
      paymentIntentId: string | null;
      /** Amount received, in major units; null when the provider did not say. */
      amount: number | null;
    }
  | { kind: 'refunded'; eventId: string; type: string; paymentIntentId: string | null }
  | { kind: 'ignored'; eventId: string; type: string };

export interface PaymentProvider {
  readonly name: 'stripe';
  createPaymentLink(request: PaymentLinkRequest): Promise<PaymentLink>;
  /** Stops a link from taking further payments (an event that ended). */
  deactivatePaymentLink(linkId: string): Promise<void>;
}

type PaymentsConfig = Config['payments'];

/** The SDK is imported with the first payment call: a deployment without Stripe never loads it. */
async function loadStripe(): Promise<typeof Stripe> {
  return (await import('stripe')).default;
}

async function stripeClient(config: PaymentsConfig, apiKey: string): Promise<Stripe> {
  const Sdk = await loadStripe();
  return new Sdk(apiKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(config.stripeApiHost
      ? { host: config.stripeApiHost, port: config.stripeApiPort, protocol: config.stripeApiProtocol }
      : {}),
  });
}

/** The configured provider, or null when no secret key is set (paid events cannot start selling). */
export function createPaymentProvider(config: PaymentsConfig): PaymentProvider | null {
  if (!config.stripeSecretKey) return null;
  const secretKey = config.stripeSecretKey;
  const stripe = lazy(() => stripeClient(config, secretKey));
  return {
    name: 'stripe',
    async createPaymentLink(request) {
      const currency = request.currency.toLowerCase();
      const metadata = { tenant_id: request.tenantId, event_id: request.eventId };
      const link = await (
        await stripe()
      ).paymentLinks.create(
        {
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency,
                unit_amount: minorUnits(request.amount, request.currency),
                product_data: { name: request.title },
              },
            },
          ],
          metadata,
          payment_intent_data: { metadata },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return { id: link.id, url: link.url };
    },
    async deactivatePaymentLink(linkId) {
      await (await stripe()).paymentLinks.update(linkId, { active: false });
    },
  };
}

/**
 * The URL a booking pays through: the event's payment link with the booking as
 * client_reference_id, which the provider returns in the completed checkout session.
 */
export function bookingPaymentUrl(link: string, bookingId: string): string {
  const url = new URL(link);
  url.searchParams.set('client_reference_id', bookingId);
  return url.toString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (value: unknown) => (typeof value === 'string' && UUID.test(value) ? value : null);
const idOf = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null && 'id' in value
      ? String((value as { id: unknown }).id)
      : null;

/** What a verified provider event means for bookings. */
export function interpretProviderEvent(event: Stripe.Event): ProviderNotice {
  const base = { eventId: event.id, type: event.type };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      // A completed session of a delayed method (e.g. SEPA debit) is not paid yet.
      if (session.payment_status !== 'paid') return { kind: 'ignored', ...base };
      const currency = (session.currency ?? '').toUpperCase();
      return {
        kind: 'paid',
        ...base,
        bookingId: uuidOrNull(session.client_reference_id),
        tenantId: uuidOrNull(session.metadata?.tenant_id),
        paymentIntentId: idOf(session.payment_intent),
        amount: session.amount_total === null ? null : session.amount_total / (minorUnits(1, currency) || 1),
      };
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      // Only a full refund changes the booking; a partial one leaves it paid.
      if (!charge.refunded) return { kind: 'ignored', ...base };
      return { kind: 'refunded', ...base, paymentIntentId: idOf(charge.payment_intent) };
    }
    default:
      return { kind: 'ignored', ...base };
  }
}

export class SignatureError extends AppError {
  constructor() {
    super(400, ErrorCode.validation, 'Invalid or expired Stripe-Signature');
  }
}

/**
 * Verifies the Stripe-Signature header over the raw body (HMAC with the endpoint secret,
 * timestamp within 5 minutes) and parses the event.
 */
export async function verifyProviderEvent(
  config: PaymentsConfig,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<Stripe.Event> {
  if (!config.stripeWebhookSecret) {
    throw new AppError(
      503,
      ErrorCode.unavailable,
      'Stripe webhooks are not configured (STRIPE_WEBHOOK_SECRET)',
    );
  }
  if (!signature) throw new SignatureError();
  const Sdk = await loadStripe();
  try {
    return Sdk.webhooks.constructEvent(rawBody, signature, config.stripeWebhookSecret);
  } catch {
    throw new SignatureError();
  }
}
