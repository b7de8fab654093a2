import { Type, type Static } from '@sinclair/typebox';
import { nameSchemas } from '../../http/schemas.js';

const DAY = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD' });
const share = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: `${description}; null when there is nothing to divide by`,
  });

export const NumbersQuery = Type.Object(
  {
    bot_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only this bot (default: all bots)' })),
    from: Type.Optional({ ...DAY, description: 'First day of the period (default: 29 days before `to`)' }),
    to: Type.Optional({ ...DAY, description: 'Last day of the period, inclusive (default: today, UTC)' }),
  },
  { additionalProperties: false },
);

export const NumbersResponse = Type.Object(
  {
    from: DAY,
    to: DAY,
    bot_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    conversations: Type.Integer({
      minimum: 0,
      description: "Customers' conversations started in the period",
    }),
    handed_over: Type.Integer({ minimum: 0, description: 'Of those, handed over to people' }),
    handed_over_share: share('handed_over / conversations'),
    replies: Type.Integer({ minimum: 0, description: 'Bot replies in the period' }),
    replies_from_knowledge: Type.Integer({
      minimum: 0,
      description: 'Bot replies that drew on the knowledge base',
    }),
    knowledge_share: share('replies_from_knowledge / replies'),
    first_human_reply: Type.Object({
      median_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
        description: 'Median time from hand-over to the first reply of a person (hand-overs in the period)',
      }),
      handovers: Type.Integer({ minimum: 0, description: 'Hand-overs in the period' }),
      answered: Type.Integer({ minimum: 0, description: 'Of those, answered by a person' }),
    }),
    satisfaction: Type.Object({
      average: Type.Union([Type.Number({ minimum: 1, maximum: 5 }), Type.Null()]),
      count: Type.Integer({ minimum: 0, description: 'Ratings given in the period' }),
      distribution: Type.Array(Type.Integer({ minimum: 0 }), {
        minItems: 5,
        maxItems: 5,
        description: 'How many ratings of 1, 2, 3, 4 and 5 stars',
      }),
    }),
    staff_reviews: Type.Object(
      {
        good: Type.Integer({ minimum: 0, description: 'Bot replies the team rated good in the period' }),
        bad: Type.Integer({ minimum: 0, description: 'Bot replies the team rated bad in the period' }),
        good_share: share('good / (good + bad)'),
      },
      {
        description:
          "The team's verdicts on bot replies (conversation review), apart from customers' ratings",
      },
    ),
    bookings: Type.Object({
      made: Type.Integer({ minimum: 0, description: 'Bookings the bots made in the period (booking tags)' }),
      waitlist: Type.Integer({ minimum: 0, description: 'Of those, places on a waiting list' }),
    }),
    top_unanswered: Type.Array(
      Type.Object({
        bot_id: Type.String({ format: 'uuid' }),
        key: Type.String(),
        question: Type.String(),
        count: Type.Integer({ minimum: 1 }),
        handed_over: Type.Integer({ minimum: 0 }),
      }),
      {
        description:
          'The most frequent questions of the period the bot replied to without knowledge (groups marked as handled left out)',
      },
    ),
    days: Type.Array(
      Type.Object({
        day: DAY,
        conversations: Type.Integer({ minimum: 0 }),
        handed_over: Type.Integer({ minimum: 0 }),
        replies: Type.Integer({ minimum: 0 }),
        replies_from_knowledge: Type.Integer({ minimum: 0 }),
      }),
      { description: 'Every day of the period, oldest first' },
    ),
  },
  { title: 'OverviewNumbers' },
);

export type NumbersQueryInput = Static<typeof NumbersQuery>;
export type Numbers = Static<typeof NumbersResponse>;

nameSchemas({ OverviewNumbers: NumbersResponse });
