// Recording events where changes happen, outside this folder. Adding an event is one line at the
// change: its records go in the change's own control-plane batch, e.g. for an asset deletion
//   const data = { asset_id: a.id, workspace_id: a.workspaceId, by, at_ms: now }
//   ops.push(...(await webhookEventOps(store, a.workspaceId, 'asset.deleted', a.id, data, now)))
// This works wherever a control store is open (a server, the admin CLI): the dispatcher of any
// server on that store sends it.
import { getAsset } from '../control/assets.js'
import type { ControlStore, Op } from '../control/store.js'
import type { Logger } from '../infra/log.js'
import type { VersionRecord } from '../versions/record.js'
import type { EventType } from '@tandem/api/webhook-events'
import { newEventId, type EventData } from './events.js'
import { Outbox } from './outbox.js'
import { listWebhooks } from './records.js'

/** The outbox records of one event for every webhook of the workspace subscribed to its type (none: no ops). */
export async function webhookEventOps<T extends EventType>(
  store: ControlStore,
  workspaceId: string,
  type: T,
  orderKey: string,
  data: EventData[T],
  nowMs: number,
): Promise<Op[]> {
  const hooks = await listWebhooks(store, workspaceId)
  if (!hooks.some((h) => h.events.includes(type))) return []
  return new Outbox(store).eventOps({ id: newEventId(nowMs), type, workspaceId, orderKey, at: nowMs, data }, hooks)
}

/** Records an event on its own (a change outside the control plane). */
export async function emitWebhookEvent<T extends EventType>(
  store: ControlStore,
  workspaceId: string,
  type: T,
  orderKey: string,
  data: EventData[T],
  nowMs: number,
): Promise<void> {
  const ops = await webhookEventOps(store, workspaceId, type, orderKey, data, nowMs)
  if (ops.length > 0) await store.batch(ops)
}

/**
 * rows.inserted, after the database committed the rows. The rows live in the asset's own database,
 * not in the outbox's store, so this is recorded right after (before the 2xx), not in the same write.
 */
export async function rowsInserted(
  o: { store: ControlStore; log: Logger; now: () => number },
  assetId: string,
  table: string,
  count: number,
): Promise<void> {
  try {
    const asset = await getAsset(o.store, assetId)
    if (asset)
      await emitWebhookEvent(
        o.store,
        asset.workspaceId,
        'rows.inserted',
        assetId,
        { asset_id: assetId, table, count },
        o.now(),
      )
  } catch (err) {
    o.log.error({ err, assetId }, 'rows.inserted event not recorded')
  }
}

/**
 * version.created, once the version is durable and before its 201. The version lives in the
 * document store, not the outbox's, so this is not the same write: a crash between the two loses
 * the event (the version itself is kept).
 */
export function versionCreatedEvents(
  store: ControlStore,
  log: Logger,
): (req: { org: string; doc: string }, v: VersionRecord) => Promise<void> {
  return (req, v) =>
    emitWebhookEvent(
      store,
      req.org,
      'version.created',
      req.doc,
      { asset_id: req.doc, workspace_id: req.org, version_id: v.id, created_by: v.by, created_at_ms: v.created_at_ms },
      v.created_at_ms,
    ).catch((err: unknown) => log.error({ err, doc: req.doc, version: v.id }, 'version.created event not recorded'))
}

/** What a suggestion event says of it (src/suggestions/record.ts fields). */
interface SuggestionFacts {
  id: string
  by: string
  status: string
  decided_by?: string
  accepted_hunks: string[]
  rejected_hunks: string[]
}

/**
 * suggestion.created|accepted|rejected, once the suggestion (and an accept's update) is durable and
 * before the answer; like version.created, not in the same write (a crash between loses the event).
 */
export function suggestionEvents(store: ControlStore, log: Logger, now: () => number) {
  return (
    req: { org: string; doc: string },
    type: 'suggestion.created' | 'suggestion.accepted' | 'suggestion.rejected',
    s: SuggestionFacts,
  ): Promise<void> => {
    const data = {
      asset_id: req.doc,
      workspace_id: req.org,
      suggestion_id: s.id,
      by: s.by,
      status: s.status,
      ...(s.decided_by ? { decided_by: s.decided_by } : {}),
      accepted_hunks: s.accepted_hunks,
      rejected_hunks: s.rejected_hunks,
      at_ms: now(),
    }
    return emitWebhookEvent(store, req.org, type, req.doc, data, data.at_ms).catch((err: unknown) =>
      log.error({ err, doc: req.doc, suggestion: s.id }, `${type} event not recorded`),
    )
  }
}
