// The event types webhooks carry (the `type` of the Standard Webhooks body): what a registration
// may subscribe to (v0/webhooks) and what the server emits (src/webhooks/events.ts, with payloads).

export const EVENT_TYPES = [
  'document.updated',
  'version.created',
  'asset.deleted',
  'asset.restored',
  'rows.inserted',
  'suggestion.created',
  'suggestion.accepted',
  'suggestion.rejected',
] as const
export type EventType = (typeof EVENT_TYPES)[number]
