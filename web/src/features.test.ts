import { describe, expect, it } from 'vitest';
import { ApiError } from './api/client';
import { placeFieldError } from './api/field-errors';
import type { Block } from './api/types';
import { refusedActivation } from './features/bots/activation';
import { eventPutBody, eventValues } from './features/events/event-form';
import { describeNotification } from './features/events/notifications';
import { blockPatch, blockProblems, blockValues, nextItemId } from './features/flow/block-form';
import { blockReasons } from './features/flow/reasons';
import { entryBody } from './features/knowledge/EntryEditor';
import { trialDaysLeft } from './features/overview/overview';
import { nextStep } from './features/webhooks/WebhookDeliveries';
import { grantableRoles, mayChange, passwordProblemKey, teamRefusalKey } from './features/users/team-rules';

describe('field errors', () => {
  it('places a 400 or 409 at the field its details name, only when the form has it', () => {
    const placed: [string, string][] = [];
    const set = (field: string, message: string) => placed.push([field, message]);
    const refusal = new ApiError(400, 'time_order', 'Das Ende muss nach dem Beginn liegen.', {
      code: 'time_order',
      details: { field: 'event_time_end' },
    });
    expect(placeFieldError(refusal, ['event_time_end'], set)).toBe(true);
    expect(placed).toEqual([['event_time_end', 'Das Ende muss nach dem Beginn liegen.']]);
    expect(placeFieldError(refusal, ['title'], set)).toBe(false);
    const conflict = new ApiError(409, 'capacity_below_booked', 'x', {
      details: { field: 'capacity_total' },
    });
    expect(placeFieldError(conflict, ['capacity_total'], set)).toBe(true);
    const missing = new ApiError(404, 'not_found', 'x', { details: { field: 'title' } });
    expect(placeFieldError(missing, ['title'], set)).toBe(false);
    // A message that merely mentions a field does not place it: only details.field does.
    expect(placeFieldError(new ApiError(400, 'x', "Field 'title' x", {}), ['title'], set)).toBe(false);
    expect(placeFieldError(new Error('x'), ['title'], set)).toBe(false);
  });
});

describe('team rules', () => {
  it('lets only owners grant the owner role and change owners', () => {
    expect(grantableRoles('owner')).toEqual(['owner', 'admin', 'editor', 'viewer', 'agent']);
    expect(grantableRoles('admin')).toEqual(['admin', 'editor', 'viewer', 'agent']);
    expect(mayChange({ id: 'a', role: 'admin' }, { id: 'o', role: 'owner' })).toBe(false);
    expect(mayChange({ id: 'a', role: 'admin' }, { id: 'e', role: 'editor' })).toBe(true);
    expect(mayChange({ id: 'o', role: 'owner' }, { id: 'o2', role: 'owner' })).toBe(true);
    expect(mayChange({ id: 'e', role: 'editor' }, { id: 'v', role: 'viewer' })).toBe(false);
  });
  it('checks passwords like the API: 8 characters to 72 bytes', () => {
    expect(passwordProblemKey('short')).toBe('team.password.tooShort');
    expect(passwordProblemKey('long enough')).toBeNull();
    expect(passwordProblemKey('ä'.repeat(37))).toBe('team.password.tooLong');
    expect(passwordProblemKey('a'.repeat(72))).toBeNull();
  });
  it('translates the known refusals of the team API', () => {
    const lastOwner = new ApiError(409, 'last_owner', 'x', { error: 'conflict', code: 'last_owner' });
    expect(teamRefusalKey(lastOwner)).toBe('team.refusals.lastOwner');
    expect(teamRefusalKey(new ApiError(403, 'owner_grant_refused', 'x', {}))).toBe(
      'team.refusals.ownerGrant',
    );
    expect(teamRefusalKey(new ApiError(429, 'rate_limited', 'Too many', {}))).toBe(
      'team.password.tooManyTries',
    );
    expect(teamRefusalKey(new ApiError(400, 'validation_error', 'something else', {}))).toBeNull();
  });
});

describe('webhook deliveries', () => {
  it('names the next step of a delivery', () => {
    expect(nextStep({ status: 'pending', next_attempt_at: '2030-01-01T00:00:00Z' })).toBe('retry');
    expect(nextStep({ status: 'succeeded', next_attempt_at: null })).toBe('done');
    expect(nextStep({ status: 'failed', next_attempt_at: null })).toBe('none');
  });
});

describe('knowledge entry form', () => {
  it('trims, drops empty tags and clears an empty source', () => {
    expect(
      entryBody({ title: ' Zeiten ', content: 'Text', source_url: ' ', tags: ['a', ' ', 'b '] }),
    ).toEqual({
      title: 'Zeiten',
      content: 'Text',
      source_url: null,
      tags: ['a', 'b'],
    });
  });
});

describe('event form', () => {
  const event = {
    id: 'e1',
    title: 'Yoga',
    event_date: '2027-03-15',
    event_time_start: '09:00:00',
    event_time_end: null,
    location: null,
    description: null,
    capacity_total: 10,
    waitlist_max: null,
    price: 12.5,
    currency: 'EUR',
    payment_model: 'deposit',
    deposit_amount: 5,
    external_payment_url: null,
    status: 'draft',
  } as unknown as Parameters<typeof eventValues>[0];

  it('sends payment terms only for a draft, and empty fields as null', () => {
    const values = { ...eventValues(event), location: ' ', waitlist_max: '' as const };
    expect(values.event_time_start).toBe('09:00');
    const draft = eventPutBody(values, true);
    expect(draft).toMatchObject({ location: null, waitlist_max: null, price: 12.5, deposit_amount: 5 });
    const selling = eventPutBody(values, false);
    expect(selling).not.toHaveProperty('price');
    expect(selling).not.toHaveProperty('payment_model');
    expect(selling).toMatchObject({ title: 'Yoga', capacity_total: 10, event_time_start: '09:00' });
  });
});

describe('notifications', () => {
  const t = (key: string, params?: Record<string, unknown>) =>
    params ? `${key} ${JSON.stringify(params)}` : key;
  it('builds the text from type and data in the reader’s language', () => {
    expect(
      describeNotification(
        { type: 'event.status_changed', data: { from: 'selling', to: 'waitlist', automatic: true } },
        t,
        'de',
      ),
    ).toBe(
      'events.notes.statusChangedAuto {"from":"events.statuses.selling","to":"events.statuses.waitlist"}',
    );
    expect(describeNotification({ type: 'booking.created', data: { status: 'waitlist' } }, t, 'de')).toBe(
      'events.notes.waitlistEntry',
    );
    expect(
      describeNotification({ type: 'payment.succeeded', data: { amount: 12.5, currency: 'EUR' } }, t, 'en'),
    ).toBe('events.notes.paymentReceived {"amount":"€12.50"}');
  });
});

describe('block editor', () => {
  const block = {
    id: 'b1',
    name: 'Termine',
    trigger_mode: null,
    items: [
      { id: 'item-1', title: 'Montag' },
      { id: 'item-2', title: 'Dienstag' },
    ],
    option_actions: { 'item-1': { action: 'goto_step', step_id: 's2' } },
    step_config: { conditions: [{ field: 'tag', operator: 'equals', value: 'mo' }] },
    exits: { default: 'end' },
  } as unknown as Block;

  it('round-trips a block through the form', () => {
    const values = blockValues(block);
    expect(values.items[0]).toMatchObject({ action: 'goto_step', step_id: 's2' });
    expect(values.items[1]).toMatchObject({ action: 'none' });
    values.items[1] = { ...values.items[1]!, action: 'reply', text: ' Gern! ' };
    values.conditions.push({ field: 'name', operator: 'exists', value: 'ignored' });
    expect(blockPatch(values)).toEqual({
      name: 'Termine',
      trigger_mode: null,
      items: [
        { id: 'item-1', title: 'Montag' },
        { id: 'item-2', title: 'Dienstag' },
      ],
      option_actions: {
        'item-1': { action: 'goto_step', step_id: 's2' },
        'item-2': { action: 'reply', text: 'Gern!' },
      },
      step_config: {
        conditions: [
          { field: 'tag', operator: 'equals', value: 'mo' },
          { field: 'name', operator: 'exists' },
        ],
      },
      exits: { default: 'end' },
    });
  });

  it('names the problems at their fields and gives new items unused ids', () => {
    const values = blockValues(block);
    values.items[0]!.step_id = '';
    values.exits.push({ name: 'default', target: '' }, { name: 'bad name', target: 'end' });
    expect(blockProblems(values)).toEqual({
      'items.0.step_id': 'flow.edit.stepRequired',
      'exits.1.name': 'flow.edit.exitNameTwice',
      'exits.1.target': 'flow.edit.targetRequired',
      'exits.2.name': 'flow.edit.exitNameInvalid',
    });
    expect(nextItemId([{ id: 'item-3' }, { id: 'item-1' }])).toBe('item-4');
  });
});

describe('pre-flight reasons', () => {
  const base = {
    status: 'orange' as const,
    itemCount: 2,
    routing: { ok: true, method: 'trigger_mode:auto' },
    conditions: { set: false, count: 0 },
    targets: { valid: true, issues: [] },
  };
  it('explains a red block and how to fix it', () => {
    expect(
      blockReasons({ ...base, status: 'red', routing: { ok: false, method: 'trigger_mode:none' } }),
    ).toEqual({
      reasons: [{ key: 'flow.reasons.noRouting' }],
      fixes: [{ key: 'flow.fixes.noRouting' }],
    });
  });
  it('lists missing conditions and every target issue', () => {
    const result = blockReasons({
      ...base,
      targets: {
        valid: false,
        issues: [
          { kind: 'untriggered_exit_key', key: 'yes', target: 'end', message: '' },
          { kind: 'untriggered_exit_key', key: 'no', target: 'end', message: '' },
        ],
      },
    });
    expect(result.reasons.map((r) => r.key)).toEqual([
      'flow.reasons.routedBy',
      'flow.reasons.noConditions',
      'flow.reasons.untriggered_exit_key',
      'flow.reasons.untriggered_exit_key',
    ]);
    expect(result.fixes.map((f) => f.key)).toEqual([
      'flow.fixes.noConditions',
      'flow.fixes.untriggered_exit_key',
    ]);
  });
  it('reads the pre-flight result of a refused activation', () => {
    const error = new ApiError(409, 'conflict', 'The bot cannot be activated: …', {
      details: { red_blocks: [{ blockId: 'b1', blockName: 'Termine', ...base, status: 'red' }] },
    });
    expect(refusedActivation(error)?.[0]?.check?.status).toBe('red');
  });
});

describe('trial end', () => {
  const now = new Date('2026-05-10T12:00:00Z');
  it('counts full days left, -1 once over, null without a trial', () => {
    expect(trialDaysLeft('2026-05-15T12:00:00Z', now)).toBe(5);
    expect(trialDaysLeft('2026-05-10T18:00:00Z', now)).toBe(0);
    expect(trialDaysLeft('2026-05-09T12:00:00Z', now)).toBe(-1);
    expect(trialDaysLeft(null, now)).toBeNull();
  });
});
