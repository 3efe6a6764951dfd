// The events webhooks carry and their payloads (the `data` of the Standard Webhooks body). Adding an
// event type: its name in @tandem/api/webhook-events, its payload type here, and one
// `webhooks.emit(...)` where the change happens.
import { EVENT_TYPES, type EventType } from '@tandem/api/webhook-events'

interface DocumentUpdated {
  asset_id: string
  workspace_id: string
  org: string
  doc_id: string
  /** who changed the document in the window, sorted */
  users: string[]
  first_at_ms: number
  last_at_ms: number
}

/** Emitted by the versions feature (document lifecycle issue). */
interface VersionCreated {
  asset_id: string
  workspace_id: string
  version_id: string
  created_by: string
  created_at_ms: number
}

/** Emitted by asset delete / restore (document lifecycle issue). */
interface AssetLifecycle {
  asset_id: string
  workspace_id: string
  by: string
  at_ms: number
}

/** asset.deleted: soft (restorable) or hard (erased for good). */
interface AssetDeleted extends AssetLifecycle {
  hard: boolean
}

interface RowsInserted {
  asset_id: string
  table: string
  count: number
}

/** Emitted by suggestions (src/suggestions/): made, and each accept or reject decision (whole or of hunks). */
interface SuggestionEvent {
  asset_id: string
  workspace_id: string
  suggestion_id: string
  /** the suggestion's author */
  by: string
  /** open while hunks are undecided; accepted, partially_accepted, rejected or withdrawn once decided */
  status: string
  decided_by?: string
  accepted_hunks: string[]
  rejected_hunks: string[]
  at_ms: number
}

export interface EventData {
  'document.updated': DocumentUpdated
  'version.created': VersionCreated
  'asset.deleted': AssetDeleted
  'asset.restored': AssetLifecycle
  'rows.inserted': RowsInserted
  'suggestion.created': SuggestionEvent
  'suggestion.accepted': SuggestionEvent
  'suggestion.rejected': SuggestionEvent
}

/** One event as recorded in the outbox: deliveries of it to every subscribed webhook share `id`. */
export interface OutboxEvent<T extends EventType = EventType> {
  /** the `webhook-id`: `msg_` + 13-digit ms + `_` + suffix, so ids sort by time */
  id: string
  type: T
  workspaceId: string
  /** deliveries with the same order key reach a webhook in id order (the asset) */
  orderKey: string
  /** ms; the body's `timestamp` */
  at: number
  data: EventData[T]
}

export const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t)

/** The exact bytes a receiver gets and the signature covers. */
export function eventBody(e: OutboxEvent): string {
  return JSON.stringify({ type: e.type, timestamp: new Date(e.at).toISOString(), data: e.data })
}

let counter = 0
/** A fresh id that sorts after earlier ones of this process (same ms: the counter decides). */
export function newEventId(nowMs: number): string {
  counter = (counter + 1) % 1_000_000
  return eventId(nowMs, `${counter.toString().padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`)
}

export const eventId = (ms: number, suffix: string) => `msg_${String(Math.floor(ms)).padStart(13, '0')}_${suffix}`
