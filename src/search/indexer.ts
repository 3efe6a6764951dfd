// Keeps the index current. Committed updates open a window per document (the webhooks' DocWindows:
// debounced per document, never per keystroke, a durable mark in the cycle's own write); when the
// window closes the document is read and its pieces replace the old ones, off the commit path.
// The mark is deleted only once the index holds the document as of the window, so a process killed
// in between re-indexes it on the next start. Asset records changing (a title, a delete, a
// restore) re-index or drop the asset through the control store's batch hook.
import type { DocService } from '../collab/doc-service.js'
import type { GroupCommitter } from '../collab/group-commit.js'
import { runContentJobOffLoop } from '../content/doc-content.js'
import { getAsset, listAssets, type Asset } from '../control/assets.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { Op } from '../control/store.js'
import type { Logger } from '../infra/log.js'
import type { DocStore } from '../storage/doc-store.js'
import { DocWindows } from '../webhooks/doc-windows.js'
import type { Piece, SearchIndex } from './search-index.js'

const MARK_PREFIX = 'search!'

/**
 * Index passes at once. The engine runs one statement at a time anyway; passes beyond these wait
 * here (their marks durable) instead of queueing statements whose deadline would run out in line.
 */
const PASSES_AT_ONCE = 2

export interface IndexerDeps {
  index: SearchIndex
  control: HookedControlStore
  docs: DocService
  store: DocStore
  log: Logger
  /** ms a document's window gathers commits before it is indexed (the index follows within this and one pass) */
  debounceMs: number
  /** a database asset's table names; absent, databases are indexed by title only */
  tables?: (asset: Asset) => Promise<string[]>
}

export class SearchIndexer {
  private readonly windows: DocWindows
  /** per asset, the pass that has not started yet (a later request joins it) and the last one chained */
  private readonly waiting = new Map<string, Promise<void>>()
  private readonly tails = new Map<string, Promise<void>>()
  private running = 0
  private readonly queue: (() => void)[] = []

  constructor(private readonly d: IndexerDeps) {
    this.windows = new DocWindows(d.store, {
      debounceMs: d.debounceMs,
      markPrefix: MARK_PREFIX,
      watched: () => true,
      emit: (w) => this.reindex(w.doc),
      onError: (err) =>
        d.log.error({ err }, 'search index update failed; the document is indexed again at the next start'),
    })
  }

  /** the index written to (what is indexed, for the rebuild and its tests) */
  get index(): SearchIndex {
    return this.d.index
  }

  /**
   * Follows the committer's cycles and the control plane's asset records; indexes what a killed process left behind.
   */
  async start(committer: GroupCommitter): Promise<void> {
    this.d.control.addHook({ after: (ops) => this.onControlOps(ops) })
    committer.addSink(this.windows)
    const recovered = await this.windows.recover()
    if (recovered > 0)
      this.d.log.info({ documents: recovered }, 'search index catching up on documents committed before a stop')
    this.reconcile().catch((err: unknown) => this.d.log.error({ err }, 'search index reconcile failed'))
  }

  /** Assets created or deleted while no server ran (an offline `tandem admin`): indexed or dropped. */
  private async reconcile(): Promise<void> {
    const [assets, indexed] = await Promise.all([listAssets(this.d.control), this.d.index.indexed()])
    await this.dropAllBut(new Set(assets.map((a) => a.id)))
    const have = new Set(indexed)
    for (const a of assets) if (!have.has(a.id)) await this.reindex(a.id)
  }

  /** Indexes the asset as it is now (drops it when it is gone or deleted); passes for one asset run one at a time. */
  reindex(assetId: string): Promise<void> {
    const queued = this.waiting.get(assetId)
    if (queued) return queued
    const pass = (this.tails.get(assetId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.waiting.delete(assetId)
        return this.pass(assetId)
      })
    this.waiting.set(assetId, pass)
    this.tails.set(assetId, pass)
    const forget = () => {
      if (this.tails.get(assetId) === pass) this.tails.delete(assetId)
    }
    pass.then(forget, forget) // the caller hears of a failure; this only keeps the map small
    return pass
  }

  /** Every asset (of one workspace, or all) indexed again from its document; entries of assets gone are dropped. */
  async rebuild(workspaceId?: string): Promise<{ indexed: number; dropped: number }> {
    const assets = await listAssets(this.d.control, workspaceId)
    const dropped = workspaceId ? 0 : await this.dropAllBut(new Set(assets.map((a) => a.id)))
    for (const a of assets) await this.reindex(a.id)
    return { indexed: assets.length, dropped }
  }

  /** Drops the entries of every asset not in `live` that is gone or deleted now; answers how many. */
  private async dropAllBut(live: ReadonlySet<string>): Promise<number> {
    let dropped = 0
    for (const id of await this.d.index.indexed()) {
      // `live` was listed before the index answered: an asset created since is not in it
      if (live.has(id) || (await getAsset(this.d.control, id))) continue
      await this.d.index.drop(id)
      dropped++
    }
    return dropped
  }

  /** Indexes the windows still open (shutdown), so a clean stop leaves nothing to catch up on. */
  async flush(): Promise<void> {
    await this.windows.flush()
    await Promise.allSettled([...this.tails.values()])
  }

  private async pass(assetId: string): Promise<void> {
    if (this.running >= PASSES_AT_ONCE) await new Promise<void>((resolve) => this.queue.push(resolve))
    this.running++
    try {
      const asset = await getAsset(this.d.control, assetId)
      if (!asset) return await this.d.index.drop(assetId)
      await this.d.index.put(asset, [
        { kind: 'title', block: null, body: asset.title },
        ...(await this.piecesOf(asset)),
      ])
    } finally {
      this.running--
      this.queue.shift()?.()
    }
  }

  private async piecesOf(asset: Asset): Promise<Piece[]> {
    if (asset.type === 'generic_doc') {
      const blocks = await this.d.docs.withState({ org: asset.workspaceId, doc: asset.id }, (state) =>
        runContentJobOffLoop({ kind: 'blocks', state }),
      )
      return blocks.map((b) => ({ kind: 'block', block: b.id, body: b.text }))
    }
    if (asset.type === 'database' && this.d.tables) {
      // a database that cannot be opened now (starting, unreachable) is indexed by its title meanwhile
      const names = await this.d.tables(asset).catch((err: unknown) => {
        this.d.log.warn(
          { err, asset: asset.id },
          'search: table names not read; indexed by title until the next rebuild',
        )
        return []
      })
      return names.map((name) => ({ kind: 'table', block: name, body: name }))
    }
    return asset.text ? [{ kind: 'block', block: null, body: asset.text }] : []
  }

  /** An asset created, renamed, deleted or restored: its entries follow, off the batch's own path. */
  private onControlOps(ops: readonly Op[]): void {
    const touched = new Set<string>()
    for (const op of ops) {
      const m = /^(asset|deleted)\/([^/]+)$/.exec(op.key)
      if (m) touched.add(m[2]!)
    }
    for (const id of touched)
      this.reindex(id).catch((err: unknown) => this.d.log.error({ err, asset: id }, 'search index update failed'))
  }
}
