import { Type } from '@sinclair/typebox';
import { nameSchemas } from '../../http/schemas.js';
import { GOLIVE_ITEMS } from './rules.js';
import { GO_LIVE_ENTRIES } from '../channels/index.js';

const ItemKey = Type.Union(
  GOLIVE_ITEMS.map((key) => Type.Literal(key)),
  { description: 'prompt, knowledge, preflight (no red block), channel, test_conversation' },
);

export const GoLiveChecklistSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      key: ItemKey,
      done: Type.Boolean(),
      tab: Type.Union(
        ['prompt', 'knowledge', 'flow', 'channels', 'chat'].map((tab) => Type.Literal(tab)),
        { description: "The bot page's tab where the item is done" },
      ),
      channels: Type.Optional(
        Type.Array(Type.Union(GO_LIVE_ENTRIES.map((entry) => Type.Literal(entry))), {
          description: 'The connected channels (widget on with an origin, share link on, an active mailbox)',
        }),
      ),
    }),
  ),
  ready: Type.Boolean({ description: 'Every item is done' }),
  missing: Type.Array(ItemKey, { description: 'The open items, in checklist order' }),
  is_active: Type.Boolean(),
});

nameSchemas({ GoLiveChecklist: GoLiveChecklistSchema });
