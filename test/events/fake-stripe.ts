import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingMessage['headers'];
}

/**
 * A stand-in for the Stripe API on 127.0.0.1: answers payment-link creation and updates the
 * way Stripe does and records every request. While `failures` is above 0, requests fail with 500.
 */
export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  failures = 0;
  private server: Server | undefined;
  private counter = 0;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0]!;
        this.requests.push({
          method: req.method ?? '',
          path,
          params: new URLSearchParams(body),
          headers: req.headers,
        });
        res.setHeader('content-type', 'application/json');
        if (this.failures > 0) {
          this.failures -= 1;
          res.statusCode = 500;
          res.end(JSON.stringify({ error: { type: 'api_error', message: 'boom' } }));
          return;
        }
        if (req.method === 'POST' && path === '/v1/payment_links') {
          this.counter += 1;
          const id = `plink_test_${this.counter}`;
          res.end(
            JSON.stringify({
              id,
              object: 'payment_link',
              active: true,
              url: `https://buy.stripe.test/${id}`,
            }),
          );
          return;
        }
        const update = /^\/v1\/payment_links\/([\w]+)$/.exec(path);
        if (req.method === 'POST' && update) {
          res.end(JSON.stringify({ id: update[1], object: 'payment_link', active: false, url: 'https://x' }));
          return;
        }
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'unknown' } }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  env(): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: 'sk_test_fake_key',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_HOST: '127.0.0.1',
      STRIPE_API_PORT: String(this.port),
      STRIPE_API_PROTOCOL: 'http',
    };
  }

  linkCreations(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v1/payment_links');
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export const WEBHOOK_SECRET = 'whsec_test_secret_for_parley';
