// Document histories for the history routes: loaded from the `history` side record of the store,
// brought up to date from the log, kept in a small LRU, written back every few hundred entries,
// and folded past the retention window (then the log is pruned). One operation per document at
// a time; documents never wait on one another.
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'
import type { DocStore } from '../storage/doc-store.js'
import { boundarySeq, rebase } from './retention.js'
import { DocHistory } from './timeline.js'

export const RECORD_NAME = 'history'
const PRUNE_CHECK_EVERY_MS = 60 * 60 * 1000

export interface HistoryServiceOptions {
  store: DocStore
  config: Pick<Config, 'historyRetentionDays' | 'historyCheckpointEvery' | 'historyCacheDocs'>
  now: () => number
  log?: Pick<Logger, 'warn'>
}

/** One per server (createServer builds it on first use): its cache and per-document queues are shared by every caller. */
export class HistoryService {
  private cache = new Map<string, DocHistory>()
  private queues = new Map<string, Promise<unknown>>()
  private pruneCheckedAt = new Map<string, number>()

  constructor(private readonly o: HistoryServiceOptions) {}

  /**
   * Applies the retention policy to every stored document (for a periodic timer): each history is
   * brought up to date, checkpointed and folded past the window when due. One document at a time.
   */
  async sweep(prefix = ''): Promise<number> {
    let n = 0
    for await (const docId of this.o.store.listDocs(prefix)) {
      await this.use(docId, () => {})
      n++
    }
    return n
  }

  /** After what is queued for the document: its cached history is dropped. */
  forget(docId: string): Promise<void> {
    const prev = this.queues.get(docId) ?? Promise.resolve()
    return prev.then(() => {
      this.cache.delete(docId)
      this.pruneCheckedAt.delete(docId)
    })
  }

  /** Runs `fn` on the document's history, up to date with its log. */
  use<T>(docId: string, fn: (h: DocHistory) => T | Promise<T>): Promise<T> {
    const prev = this.queues.get(docId) ?? Promise.resolve()
    const run = prev.then(async () => fn(await this.current(docId)))
    const tail = run.catch(() => {})
    this.queues.set(docId, tail)
    void tail.then(() => {
      if (this.queues.get(docId) === tail) this.queues.delete(docId)
    })
    return run
  }

  private async current(docId: string): Promise<DocHistory> {
    let h = this.cache.get(docId) ?? (await this.load(docId))
    this.remember(docId, h)
    for await (const e of this.o.store.readLog(docId, h.lastSeq + 1)) h.apply(e)
    h = await this.retain(docId, h)
    if (h.lastSeq - h.savedSeq >= this.o.config.historyCheckpointEvery) await this.save(docId, h)
    return h
  }

  private remember(docId: string, h: DocHistory): void {
    this.cache.delete(docId)
    this.cache.set(docId, h)
    for (const key of this.cache.keys()) {
      if (this.cache.size <= this.o.config.historyCacheDocs) break
      this.cache.delete(key)
    }
  }

  private async load(docId: string): Promise<DocHistory> {
    const bytes = await this.o.store.readMeta(docId, RECORD_NAME)
    if (bytes) {
      try {
        return DocHistory.decode(bytes)
      } catch (err) {
        // An unreadable record (another version) is only a cache while the log is whole.
        this.o.log?.warn({ err, docId }, 'history record unreadable; rebuilding from the log')
      }
    }
    // No history record but a log that no longer starts at 1: start from the stored snapshot.
    for await (const first of this.o.store.readLog(docId)) {
      if (first.seq === 1) break
      const { snapshot } = await this.o.store.load(docId)
      if (snapshot) return new DocHistory({ seq: snapshot.seq, at: snapshot.at, state: snapshot.state })
      break
    }
    return new DocHistory()
  }

  private async save(docId: string, h: DocHistory): Promise<void> {
    await this.o.store.writeMeta(docId, RECORD_NAME, h.encode())
    h.savedSeq = h.lastSeq
  }

  /** Folds history older than the window into the base once an hour per document at most. */
  private async retain(docId: string, h: DocHistory): Promise<DocHistory> {
    const now = this.o.now()
    const checked = this.pruneCheckedAt.get(docId)
    if (checked !== undefined && now - checked < PRUNE_CHECK_EVERY_MS && now >= checked) return h
    this.pruneCheckedAt.set(docId, now)
    const days = this.o.config.historyRetentionDays
    if (boundarySeq(h, now, days, Number.MAX_SAFE_INTEGER) === null) return h
    // The log may only be pruned up to the room's snapshot, which stands for it.
    const { snapshot } = await this.o.store.load(docId)
    const seq = boundarySeq(h, now, days, snapshot?.seq ?? 0)
    if (seq === null) return h
    const next = await rebase(h, seq, (from, to) => this.o.store.readLog(docId, from, to))
    await this.save(docId, next) // durable before the log it replaces goes
    await this.o.store.prune(docId, seq)
    this.remember(docId, next)
    return next
  }
}
