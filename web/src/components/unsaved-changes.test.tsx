import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Link, Outlet, RouterProvider, createMemoryRouter } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTexts } from '../i18n';
import { UnsavedChangesGuard, useUnsavedChanges } from './unsaved-changes';

function PromptLike({ save }: { save?: (text: string) => Promise<boolean> }) {
  const [saved, setSaved] = useState('Hallo');
  const [text, setText] = useState('Hallo');
  useUnsavedChanges({
    dirty: text !== saved,
    save: save
      ? async () => {
          const ok = await save(text);
          if (ok) setSaved(text);
          return ok;
        }
      : undefined,
    discard: () => setText(saved),
  });
  return (
    <>
      <textarea aria-label="Prompt" value={text} onChange={(e) => setText(e.currentTarget.value)} />
      <Link to="/other">Weg</Link>
    </>
  );
}

function renderGuarded(save?: (text: string) => Promise<boolean>) {
  const router = createMemoryRouter(
    [
      {
        path: '/',
        element: (
          <UnsavedChangesGuard>
            <Outlet />
          </UnsavedChangesGuard>
        ),
        children: [
          { path: 'prompt', element: <PromptLike save={save} /> },
          { path: 'other', element: <p>Andere Seite</p> },
        ],
      },
    ],
    { initialEntries: ['/prompt'] },
  );
  render(
    <MantineProvider>
      <RouterProvider router={router} />
    </MantineProvider>,
  );
  return router;
}

async function editAndLeave() {
  const user = userEvent.setup();
  await user.type(screen.getByRole('textbox', { name: 'Prompt' }), ' Welt');
  await user.click(screen.getByRole('link', { name: 'Weg' }));
  return user;
}

// Generous time per test: a busy machine renders Mantine's dialog slowly.
describe('unsaved-changes guard', { timeout: 20_000 }, () => {
  beforeAll(async () => {
    await loadTexts();
  });

  it('lets a form without changes go without asking', async () => {
    const router = renderGuarded();
    await userEvent.setup().click(screen.getByRole('link', { name: 'Weg' }));
    expect(await screen.findByText('Andere Seite')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/other');
    expect(screen.queryByText('Ungespeicherte Änderungen')).not.toBeInTheDocument();
  });

  it('asks before leaving with changes; "stay" keeps the page and the text', async () => {
    const router = renderGuarded(async () => true);
    const user = await editAndLeave();
    const dialog = await screen.findByRole('dialog', { name: 'Ungespeicherte Änderungen' });
    expect(dialog).toHaveTextContent('Hierbleiben');
    expect(dialog).toHaveTextContent('Verwerfen');
    expect(dialog).toHaveTextContent('Speichern und weiter');
    await user.click(screen.getByRole('button', { name: 'Hierbleiben' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/prompt');
    expect(screen.getByRole('textbox', { name: 'Prompt' })).toHaveValue('Hallo Welt');
  });

  it('"discard" drops the changes and leaves', async () => {
    const router = renderGuarded(async () => true);
    const user = await editAndLeave();
    await user.click(await screen.findByRole('button', { name: 'Verwerfen' }));
    expect(await screen.findByText('Andere Seite')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/other');
  });

  it('"save" saves the changes, then leaves', async () => {
    const save = vi.fn(async () => true);
    const router = renderGuarded(save);
    const user = await editAndLeave();
    await user.click(await screen.findByRole('button', { name: 'Speichern und weiter' }));
    expect(await screen.findByText('Andere Seite')).toBeInTheDocument();
    expect(save).toHaveBeenCalledWith('Hallo Welt');
    expect(router.state.location.pathname).toBe('/other');
  });

  it('stays when saving is refused, with the text kept', async () => {
    const router = renderGuarded(async () => {
      throw new Error('refused');
    });
    const user = await editAndLeave();
    await user.click(await screen.findByRole('button', { name: 'Speichern und weiter' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/prompt');
    expect(screen.getByRole('textbox', { name: 'Prompt' })).toHaveValue('Hallo Welt');
  });

  it('offers no "save" for a form that cannot save on the way out', async () => {
    renderGuarded();
    await editAndLeave();
    await screen.findByRole('dialog', { name: 'Ungespeicherte Änderungen' });
    expect(screen.queryByRole('button', { name: 'Speichern und weiter' })).not.toBeInTheDocument();
  });

  it('asks the browser to confirm closing the tab only while changes are unsaved', async () => {
    renderGuarded(async () => true);
    const clean = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(clean);
    expect(clean.defaultPrevented).toBe(false);
    await userEvent.setup().type(screen.getByRole('textbox', { name: 'Prompt' }), '!');
    const dirty = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(dirty);
    expect(dirty.defaultPrevented).toBe(true);
  });
});
