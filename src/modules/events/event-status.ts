/**
 * The event state machine of the specification (States › Event status), as pure decisions.
 * Every row of the table may be asked for; the capacity conditions of the selling ↔ waitlist
 * rows govern the automatic switch ("automatic switch depends on capacity"). A manual switch
 * to `waitlist` holds the remaining places: new bookings queue until sale resumes or a place
 * is freed.
 */
export const EVENT_STATUSES = ['draft', 'selling', 'waitlist', 'completed', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export const PAYMENT_MODELS = ['free', 'full_payment', 'deposit', 'external_link'] as const;
export type PaymentModel = (typeof PAYMENT_MODELS)[number];

const NEXT: Record<EventStatus, readonly EventStatus[]> = {
  draft: ['selling', 'cancelled'],
  selling: ['waitlist', 'completed', 'cancelled'],
  waitlist: ['selling', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export const FINAL_EVENT_STATUSES: readonly EventStatus[] = ['completed', 'cancelled'];
/** Statuses in which bookings are accepted. */
export const BOOKABLE_EVENT_STATUSES: readonly EventStatus[] = ['selling', 'waitlist'];
const DELETABLE: readonly EventStatus[] = ['draft', 'cancelled'];

export type TransitionDecision = { allowed: true } | { allowed: false; reason: string };

export function allowedEventTransitions(from: EventStatus): readonly EventStatus[] {
  return NEXT[from];
}

/** Decides a requested status change. */
export function decideEventTransition(from: EventStatus, to: EventStatus): TransitionDecision {
  const refused = (why: string): TransitionDecision => ({
    allowed: false,
    reason: `Event status cannot change from '${from}' to '${to}': ${why}`,
  });
  if (from === to) return refused('the event already has this status');
  if (FINAL_EVENT_STATUSES.includes(from)) return refused(`'${from}' is a final status`);
  if (!NEXT[from].includes(to)) {
    return refused(`allowed from '${from}' are ${NEXT[from].map((s) => `'${s}'`).join(', ')}`);
  }
  return { allowed: true };
}

/**
 * The automatic switch: a selling event whose capacity is exhausted goes to `waitlist`; a
 * waitlist event goes back to `selling` when places have become free by the change just made
 * (a cancellation, a larger capacity). Null: the status stays.
 */
export function automaticEventStatus(
  status: EventStatus,
  state: { freePlaces: number; placesFreed: boolean },
): EventStatus | null {
  if (status === 'selling' && state.freePlaces <= 0) return 'waitlist';
  if (status === 'waitlist' && state.placesFreed && state.freePlaces > 0) return 'selling';
  return null;
}

export function canDeleteEvent(status: EventStatus): boolean {
  return DELETABLE.includes(status);
}

/** The exact refusal text of the specification (Errors › Events). */
export function deletionRefusedMessage(status: EventStatus): string {
  return `Event im Status '${status}' kann nicht gelöscht werden`;
}

/** Paid models whose payment runs through the provider's payment link. */
export function requiresProviderLink(model: PaymentModel): boolean {
  return model === 'full_payment' || model === 'deposit';
}
