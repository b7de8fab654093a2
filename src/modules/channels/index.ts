/** The public surface of the channels module: what other modules may import (see docs/ARCHITECTURE.md). */
export {
  BOOKING_CHANNELS,
  CHANNEL_KINDS,
  GO_LIVE_ENTRIES,
  channelOf,
  kindsWhere,
  liveEntries,
  type BookingChannel,
  type ChannelKind,
  type GoLiveEntry,
  type GuardName,
} from './registry.js';
