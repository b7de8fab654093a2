import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeAll, vi } from 'vitest';
import type { Me } from '../api/types';
import { MeProvider } from '../app/session';
import { loadTexts } from '../i18n';

/** A JSON answer of the API. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * The API as a component sees it: `answer` gets each request as "METHOD /path" (with the query
 * when `withSearch`) and the URL; every request line and every non-GET body is recorded.
 */
export function fakeApi(
  answer: (line: string, url: URL, request: Request) => Response | Promise<Response>,
  { withSearch = false } = {},
) {
  const requests: string[] = [];
  const bodies: unknown[] = [];
  const fetch = vi.fn(async (input: Request) => {
    const url = new URL(input.url);
    const line = `${input.method} ${url.pathname}${withSearch ? url.search : ''}`;
    requests.push(line);
    if (input.method !== 'GET') {
      bodies.push(
        await input
          .clone()
          .json()
          .catch(() => null),
      );
    }
    return answer(line, url, input);
  });
  return { requests, bodies, fetch };
}

/**
 * `fakeApi` in place of `fetch` for every test of the file, with the dashboard's texts loaded
 * before the first.
 */
export function serveFakeApi(...args: Parameters<typeof fakeApi>) {
  const served = fakeApi(...args);
  beforeAll(async () => {
    vi.stubGlobal('fetch', served.fetch);
    await loadTexts();
  });
  return served;
}

/**
 * Renders a component as the dashboard does: Mantine, a query cache that does not retry, and,
 * with `me`, the signed-in user; with `route`, inside a router at `path` opened at `route`.
 */
export function renderWithApp(
  ui: ReactNode,
  { me, path, route }: { me?: { permissions: string[] }; path?: string; route?: string } = {},
) {
  let content = ui;
  if (path && route) {
    const router = createMemoryRouter([{ path, element: ui }], { initialEntries: [route] });
    content = <RouterProvider router={router} />;
  }
  if (me) content = <MeProvider me={me as unknown as Me}>{content}</MeProvider>;
  return render(
    <MantineProvider>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        {content}
      </QueryClientProvider>
    </MantineProvider>,
  );
}
