/**
 * The event state machine of the specification (States › Event status), as pure decisions.
 * `selling` and `waitlist` mirror the capacity: the switch between them requires the
 * condition of its table row, whether asked for or done automatically.
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

/** Decides a requested status change; `freePlaces` is capacity_total − capacity_booked. */
export function decideEventTransition(
  from: EventStatus,
  to: EventStatus,
  state: { freePlaces: number },
): TransitionDecision {
  const refused = (why: string): TransitionDecision => ({
    allowed: false,
    reason: `Event status cannot change from '${from}' to '${to}': ${why}`,
  });
  if (from === to) return refused('the event already has this status');
  if (FINAL_EVENT_STATUSES.includes(from)) return refused(`'${from}' is a final status`);
  if (!NEXT[from].includes(to)) {
    return refused(`allowed from '${from}' are ${NEXT[from].map((s) => `'${s}'`).join(', ')}`);
  }
  if (from === 'selling' && to === 'waitlist' && state.freePlaces > 0) {
    return refused(
      `${state.freePlaces} place(s) are still free; the switch happens when capacity is exhausted`,
    );
  }
  if (from === 'waitlist' && to === 'selling' && state.freePlaces <= 0) {
    return refused('no places are free; the switch happens when places become free');
  }
  return { allowed: true };
}

/**
 * The status an event in sale should have for its capacity, or null when it is right as it
 * is (also for events that are not in sale).
 */
export function automaticEventStatus(status: EventStatus, freePlaces: number): EventStatus | null {
  if (status === 'selling' && freePlaces <= 0) return 'waitlist';
  if (status === 'waitlist' && freePlaces > 0) return 'selling';
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
