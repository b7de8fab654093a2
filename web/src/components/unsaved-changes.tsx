import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';

/** A form with changes that are not saved yet. */
export interface UnsavedForm {
  /**
   * Whether the form holds changes the server does not have; a function is asked at the moment
   * of leaving (a form reset just before a navigation then counts).
   */
  dirty: boolean | (() => boolean);
  /** Saves the changes; resolves true when saved, false (or throws) when refused. */
  save?: () => Promise<boolean>;
  /** Drops the changes (optional: leaving the page drops them anyway). */
  discard?: () => void;
}

interface Registered {
  dirty: () => boolean;
  save?: () => Promise<boolean>;
  discard: () => void;
}

interface Registry {
  set: (id: string, form: Registered | null) => void;
}

const UnsavedContext = createContext<Registry | null>(null);

/**
 * Guards every registered form of the pages below it: leaving with unsaved changes — a link, a
 * tab, the back button or closing the browser tab — asks first and offers save, discard or stay.
 * A router supports one blocker, so the pages share this one guard.
 */
export function UnsavedChangesGuard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const forms = useRef(new Map<string, Registered>());
  const [saving, setSaving] = useState(false);
  const dirtyForms = () => [...forms.current.values()].filter((form) => form.dirty());
  const registry = useMemo<Registry>(
    () => ({
      set: (id, form) => {
        if (form) forms.current.set(id, form);
        else forms.current.delete(id);
      },
    }),
    [],
  );
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      (currentLocation.pathname !== nextLocation.pathname ||
        currentLocation.search !== nextLocation.search) &&
      dirtyForms().length > 0,
  );

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (dirtyForms().length === 0) return;
      event.preventDefault();
      // Older browsers show their question only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  const blocked = blocker.state === 'blocked';
  const canSave = blocked && dirtyForms().every((form) => form.save);
  const stay = () => {
    if (blocker.state === 'blocked') blocker.reset();
  };
  const discard = () => {
    for (const form of dirtyForms()) form.discard();
    if (blocker.state === 'blocked') blocker.proceed();
  };
  const save = async () => {
    setSaving(true);
    let saved = true;
    for (const form of dirtyForms()) {
      try {
        saved = (await form.save!()) && saved;
      } catch {
        saved = false;
      }
    }
    setSaving(false);
    if (blocker.state !== 'blocked') return;
    // A refused save stays on the page, where the form shows why.
    if (saved) blocker.proceed();
    else blocker.reset();
  };

  return (
    <UnsavedContext.Provider value={registry}>
      {children}
      <Modal
        opened={blocked}
        onClose={stay}
        title={t('common.unsaved.title')}
        closeOnClickOutside={!saving}
        data-testid="unsaved-dialog"
      >
        <Stack>
          <Text size="sm">{t('common.unsaved.text')}</Text>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={stay} data-autofocus>
              {t('common.unsaved.stay')}
            </Button>
            <Button variant="light" color="red" onClick={discard} disabled={saving}>
              {t('common.unsaved.discard')}
            </Button>
            {canSave && (
              <Button onClick={() => void save()} loading={saving}>
                {t('common.unsaved.save')}
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </UnsavedContext.Provider>
  );
}

/**
 * Registers a form with the page's guard. `save` and `discard` may change every render; the
 * guard always calls the latest.
 */
export function useUnsavedChanges(form: UnsavedForm): void {
  const registry = useContext(UnsavedContext);
  const id = useId();
  const latest = useRef(form);
  latest.current = form;
  const hasSave = Boolean(form.save);
  const dirty = useCallback(() => {
    const value = latest.current.dirty;
    return typeof value === 'function' ? value() : value;
  }, []);
  const save = useCallback(() => latest.current.save!(), []);
  const discard = useCallback(() => latest.current.discard?.(), []);
  useEffect(() => {
    if (!registry) return;
    registry.set(id, { dirty, save: hasSave ? save : undefined, discard });
    return () => registry.set(id, null);
  }, [registry, id, hasSave, dirty, save, discard]);
}

/** The parts of a `@mantine/form` form the guard needs. */
interface GuardedForm<V> {
  isDirty: () => boolean;
  validate: () => { hasErrors: boolean };
  getValues: () => V;
  reset: () => void;
}

/** Registers a `@mantine/form` form: saving validates first, then submits its values. */
export function useFormUnsavedChanges<V>(
  form: GuardedForm<V>,
  submit: (values: V) => Promise<unknown>,
  enabled = true,
): void {
  useUnsavedChanges({
    dirty: () => enabled && form.isDirty(),
    save: async () => {
      if (form.validate().hasErrors) return false;
      await submit(form.getValues());
      return true;
    },
    discard: () => form.reset(),
  });
}
