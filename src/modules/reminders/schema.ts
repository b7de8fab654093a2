import { Type } from '@sinclair/typebox';

const Text = Type.String();

export const DueRemindersResponse = Type.Object({
  success: Type.Boolean(),
  date: Type.String({ format: 'date-time', description: 'Time of the selection' }),
  reminders: Type.Array(
    Type.Object({
      type: Type.String({ description: '7d, 3d or 1d' }),
      template: Type.String({ description: 'Mail template of the type' }),
      users: Type.Array(
        Type.Object({
          email: Text,
          first_name: Text,
          last_name: Text,
          phone: Text,
          company: Text,
          tenant_id: Type.String({ format: 'uuid' }),
          trial_start: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          trial_ends_at: Type.String({ format: 'date-time' }),
          days_elapsed: Type.Integer({ description: 'Calendar days since the trial started' }),
          days_remaining: Type.Integer({ description: 'Calendar days until the trial ends' }),
        }),
      ),
    }),
    { description: 'Always three groups, in the order 7d, 3d, 1d' },
  ),
  total_due: Type.Integer({ description: 'Users over all groups' }),
});

export const LogReminderBody = Type.Object(
  {
    tenant_id: Type.String({ format: 'uuid' }),
    user_email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 255,
        description: "Recipient; default: the tenant owner's address",
      }),
    ),
    reminder_type: Type.String({ minLength: 1, maxLength: 10, description: 'e.g. 7d, 3d, 1d' }),
    template_name: Type.String({ minLength: 1, maxLength: 100 }),
    status: Type.Optional(Type.Union([Type.Literal('sent'), Type.Literal('error')], { default: 'sent' })),
    error_message: Type.Optional(Type.Union([Type.String({ maxLength: 10000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const LogReminderResponse = Type.Object({ success: Type.Boolean() });
