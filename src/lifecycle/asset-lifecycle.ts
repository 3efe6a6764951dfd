// Deleting and restoring assets: one function each, the only places they happen; each records its
// webhook event (asset.deleted / asset.restored) in the same control-plane batch as the change.
// A soft delete writes a deletion record beside the asset and touches nothing of its content;
// every listener learns it through the deleted-documents deny-set (src/auth/deleted-docs.ts) and
// refuses the document from then on; restore removes the record. A hard delete replaces the asset's records with a
// tombstone (its id answers 404 everywhere, for good) and erases every store of its document.
import { randomUUID } from 'node:crypto'
import { DELETED_VERSION_KEY, DOC_DELETED_MESSAGE, deletionKey, type DocDeletion } from '../auth/deleted-docs.js'
import { assetRecordKeys, getAssetRecord, type Asset } from '../control/assets.js'
import { threadRecordKeys } from '../control/comments.js'
import type { ControlStore, Op } from '../control/store.js'
import type { DatabaseAsset } from '../database-assets/options.js'
import { AppError } from '../infra/errors.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { docIdOf, type DocStore } from '../storage/doc-store.js'
import type { SuggestionStore } from '../suggestions/store.js'
import type { VersionStore } from '../versions/store.js'
import { webhookEventOps } from '../webhooks/emit.js'

/** The stores a document's records live in. */
interface DocumentStores {
  docs: DocStore
  versions: VersionStore
  suggestions?: SuggestionStore
  history?: HistoryMemory
}

/** What the server's history service holds of documents in memory (absent where none was built). */
interface HistoryMemory {
  forget(docId: string): Promise<void>
}

/** Erases one stored document (one branch of an asset's document) from one kind of record. */
type DocumentEraser = (stores: DocumentStores, docId: string) => Promise<void>

/**
 * Everything Tandem keeps per document, erased by a hard delete for every branch. A module that
 * keeps its own per-document records (named versions, ...) adds its eraser here: one line.
 */
const DOCUMENT_ERASERS: readonly DocumentEraser[] = [
  ({ docs }, docId) => docs.eraseDocument(docId), // log, snapshot, side records (history checkpoints)
  ({ versions }, docId) => versions.erase(docId), // named versions: records and states
  async ({ suggestions }, docId) => suggestions?.erase(docId), // suggestions: records and updates
  // the history service's copy in memory
  async ({ history }, docId) => history?.forget(docId),
]

/** The loaded rooms of this process (the room registry). */
interface LiveRooms {
  closeDocument(org: string, doc: string, code: CloseCode, reason: string): void
  dropDocument(org: string, doc: string, code: CloseCode, reason: string): Promise<void>
}

export interface LifecycleDeps {
  control: ControlStore
  docs: DocStore
  versions: VersionStore
  suggestions?: SuggestionStore
  rooms?: LiveRooms
  history?: HistoryMemory
  /** the process's database registry, asked for only when a database asset is hard deleted */
  databases?: () => Promise<{ dropData(asset: DatabaseAsset): Promise<void> }>
  now: () => number
}

/** What restore answers: whether there was a deletion to undo. */
export interface Restored {
  assetId: string
  restored: boolean
}

const versionOp = (nowMs: number): Op => ({
  type: 'put',
  key: DELETED_VERSION_KEY,
  value: { changedAtMs: nowMs, nonce: randomUUID() },
})

export class AssetLifecycle {
  private readonly purging = new Map<string, Promise<void>>()

  constructor(private readonly d: LifecycleDeps) {}

  /**
   * Soft: idempotent, a repeat answers the same record. Hard: the records go at once, then every
   * store of this process is erased before it answers (other cluster nodes drop theirs as they
   * learn the tombstone). A hard delete of a soft-deleted asset is allowed; of a gone one, 404.
   */
  async deleteAsset(assetId: string, by: string, hard: boolean): Promise<DocDeletion> {
    const { asset, deletion: existing } = await getAssetRecord(this.d.control, assetId)
    if (!asset) throw new AppError('not_found', 'Asset not found')
    if (existing && !hard) return existing
    const nowMs = this.d.now()
    const deletion: DocDeletion = {
      assetId,
      org: asset.workspaceId,
      doc: asset.id,
      type: asset.type,
      ...(asset.database ? { provider: asset.database.provider } : {}),
      deletedAtMs: nowMs,
      by,
      hard,
    }
    const ops: Op[] = [{ type: 'put', key: deletionKey(assetId), value: deletion }, versionOp(nowMs)]
    if (hard) for (const key of await this.recordKeys(asset)) ops.push({ type: 'del', key })
    const event = { asset_id: assetId, workspace_id: asset.workspaceId, by, at_ms: nowMs, hard }
    ops.push(...(await webhookEventOps(this.d.control, asset.workspaceId, 'asset.deleted', assetId, event, nowMs)))
    await this.d.control.batch(ops)
    if (!hard) return deletion
    await this.purge(deletion)
    const erased = { ...deletion, erasedAtMs: this.d.now() }
    await this.d.control.batch([
      { type: 'put', key: deletionKey(assetId), value: erased },
      versionOp(erased.erasedAtMs),
    ])
    return erased
  }

  /** Undoes a soft delete: everything answers as before. Idempotent; a hard-deleted id is 404. */
  async restoreAsset(assetId: string, by: string): Promise<Restored> {
    const { asset, deletion } = await getAssetRecord(this.d.control, assetId)
    if (!asset || deletion?.hard) throw new AppError('not_found', 'Asset not found')
    if (!deletion) return { assetId, restored: false }
    const nowMs = this.d.now()
    const event = { asset_id: assetId, workspace_id: asset.workspaceId, by, at_ms: nowMs }
    const ops = await webhookEventOps(this.d.control, asset.workspaceId, 'asset.restored', assetId, event, nowMs)
    await this.d.control.batch([{ type: 'del', key: deletionKey(assetId) }, versionOp(nowMs), ...ops])
    return { assetId, restored: true }
  }

  /**
   * Drops and erases what this process holds of a hard-deleted asset: its rooms (unwritten
   * updates discarded, sockets closed 4404), every stored branch through DOCUMENT_ERASERS, a
   * database asset's data. Idempotent; concurrent calls share one run. Each cluster node runs it
   * when it learns the tombstone, after dropping its rooms, so a write it made before is erased too.
   */
  purge(deletion: DocDeletion): Promise<void> {
    let run = this.purging.get(deletion.assetId)
    if (run) return run
    run = this.erase(deletion).finally(() => this.purging.delete(deletion.assetId))
    this.purging.set(deletion.assetId, run)
    return run
  }

  private async erase({ assetId, org, doc, type, provider }: DocDeletion): Promise<void> {
    await this.d.rooms?.dropDocument(org, doc, CLOSE.docDeleted, DOC_DELETED_MESSAGE)
    const docIds = new Set([docIdOf(org, doc)])
    for await (const id of this.d.docs.listDocs(`${org}/${doc}/`)) docIds.add(id)
    for (const docId of docIds) for (const erase of DOCUMENT_ERASERS) await erase(this.d, docId)
    if (type === 'database' && this.d.databases) {
      // imported here: a plain start never loads the databases folder
      const { DEFAULT_PROVIDER } = await import('../database-assets/options.js')
      await (await this.d.databases()).dropData({ id: assetId, provider: provider ?? DEFAULT_PROVIDER })
    }
  }

  /** The asset's own control-plane records: the asset, its index entry, grants, comment threads. */
  private async recordKeys(asset: Asset): Promise<string[]> {
    // a managed database asset's login (imported here: a plain start never loads the databases folder)
    const login =
      asset.type === 'database'
        ? (await import('../database-assets/managed/login-record.js')).managedLoginKeys(asset.id)
        : []
    return [
      ...(await assetRecordKeys(this.d.control, asset)),
      ...(await threadRecordKeys(this.d.control, asset.id)),
      ...login,
    ]
  }
}
