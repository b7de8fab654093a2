import { Type, type Static } from '@sinclair/typebox';

export const UsageQuery = Type.Object(
  {
    month: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}$',
        description: 'Calendar month YYYY-MM (UTC); default: this month',
      }),
    ),
  },
  { additionalProperties: false },
);

const activity = {
  messages: Type.Integer({ minimum: 0, description: 'Inbound messages (what the quota counts)' }),
  replies: Type.Integer({ minimum: 0, description: 'Bot replies' }),
  tokens: Type.Integer({ minimum: 0, description: 'Tokens of all messages' }),
};

export const UsageResponse = Type.Object(
  {
    month: Type.String({ description: 'YYYY-MM' }),
    period_start: Type.String({ format: 'date' }),
    period_end: Type.String({ format: 'date', description: 'Last day of the month' }),
    plan_id: Type.String(),
    subscription_status: Type.Optional(
      Type.Union(
        ['trial', 'active', 'past_due', 'cancelled'].map((s) => Type.Literal(s)),
        {
          description: 'State of the subscription: trial, active, past_due or cancelled',
        },
      ),
    ),
    trial_ends_at: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'End of the trial; null when the subscription has none',
      }),
    ),
    messages_used: Type.Integer({ minimum: 0, description: 'Messages counted against the monthly quota' }),
    messages_quota: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Monthly message quota; null means unlimited',
    }),
    messages_remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Messages left this month; null means unlimited',
    }),
    tokens_used: Type.Integer({ minimum: 0, description: 'Tokens counted this month' }),
    per_bot: Type.Array(
      Type.Object({ bot_id: Type.String({ format: 'uuid' }), name: Type.String(), ...activity }),
    ),
    per_day: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...activity }), {
      description: 'Every day of the month, oldest first (zero on days without messages)',
    }),
  },
  { title: 'Usage' },
);

export type UsageReport = Static<typeof UsageResponse>;
