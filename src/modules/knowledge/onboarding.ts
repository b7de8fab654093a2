import type { Queryable } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';
import { findOnboarding } from './repository.js';

/**
 * The tenant's knowledge-base onboarding checklist. Steps marked automatic are ticked by the
 * service when the tenant does them; the rest are ticked by the tenant in the dashboard.
 */
export const ONBOARDING_STEPS = [
  { key: 'entry_created', label: 'Ersten Wissenseintrag anlegen', automatic: true },
  { key: 'search_tested', label: 'Treffertest ausführen, um zu sehen, was der Chat findet', automatic: true },
  {
    key: 'strictness_reviewed',
    label: 'Wissensstrenge und Mindestscore der Bots prüfen',
    automatic: false,
  },
] as const;

export type OnboardingStepKey = (typeof ONBOARDING_STEPS)[number]['key'];
export const ONBOARDING_STEP_KEYS = ONBOARDING_STEPS.map((s) => s.key) as OnboardingStepKey[];

export interface OnboardingStepState {
  key: OnboardingStepKey;
  label: string;
  automatic: boolean;
  done: boolean;
  done_at: string | null;
}

export interface OnboardingState {
  started: boolean;
  complete: boolean;
  steps: OnboardingStepState[];
}

/** Pure: the checklist from the stored step times (undefined before the checklist starts). */
export function describeOnboarding(stored: Record<string, string> | undefined): OnboardingState {
  const steps = ONBOARDING_STEPS.map((step) => {
    const at = stored?.[step.key];
    return {
      key: step.key,
      label: step.label,
      automatic: step.automatic,
      done: at !== undefined,
      done_at: at === undefined ? null : new Date(at).toISOString(),
    };
  });
  return { started: stored !== undefined, complete: steps.every((s) => s.done), steps };
}

export interface KbOnboardingNotice {
  type: string;
  message: string;
  details: unknown;
}

/**
 * For the pre-flight check: null when the tenant has no checklist yet or has done every step;
 * otherwise a notice naming the open steps.
 */
export async function getKbOnboarding(db: Queryable, tenantId: string): Promise<KbOnboardingNotice | null> {
  if (!isUuid(tenantId)) return null;
  const state = describeOnboarding(await findOnboarding(db, tenantId));
  if (!state.started || state.complete) return null;
  const pending = state.steps.filter((s) => !s.done);
  return {
    type: 'kb_onboarding_incomplete',
    message: `Einrichtung der Wissensdatenbank unvollständig: ${pending.length} von ${state.steps.length} Schritten offen`,
    details: {
      completed: state.steps.filter((s) => s.done).map((s) => s.key),
      pending: pending.map((s) => ({ key: s.key, label: s.label })),
      steps: state.steps,
    },
  };
}
