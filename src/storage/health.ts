// Whether document storage currently takes writes. Every write goes through `trackWrites`, so
// /readyz, the failure metric and REST callers waiting for durability all see the same signal:
// failing from a failed write until the next write succeeds (rooms retry held updates with
// backoff, so a recovered store is noticed by the next retry).
import { AppError } from '../infra/errors.js'
import type { Metrics } from '../infra/metrics.js'
import type { AppendWrite, DocStore, Snapshot, UpdateEntry } from './doc-store.js'

const RETRY_AFTER_SEC = 1

export class StorageHealth {
  private failingSince: number | null = null
  private waiters = new Set<() => void>()

  constructor(private readonly metrics?: Metrics) {}

  get ok(): boolean {
    return this.failingSince === null
  }

  succeeded(): void {
    if (this.failingSince === null) return
    this.failingSince = null
    this.metrics?.storageHealthy.set(1)
  }

  failed(op: string): void {
    this.metrics?.storageWriteFailures.inc({ op })
    if (this.failingSince === null) {
      this.failingSince = Date.now()
      this.metrics?.storageHealthy.set(0)
    }
    const waiters = [...this.waiters]
    this.waiters.clear()
    for (const w of waiters) w()
  }

  /**
   * Resolves with `durable`, or rejects (503, Retry-After) at the first storage write failure seen
   * while waiting: the caller hears "not durable yet, retry" instead of hanging through an outage.
   * The held update is still written once storage is back; sending it again is harmless (Yjs
   * updates are idempotent).
   */
  untilDurable<T>(durable: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onFailure = () =>
        reject(
          new AppError('unavailable', 'document storage is failing: the update is held but not yet durable; retry', {
            retryAfterSec: RETRY_AFTER_SEC,
          }),
        )
      this.waiters.add(onFailure)
      durable.then(
        (v) => {
          this.waiters.delete(onFailure)
          resolve(v)
        },
        (e) => {
          this.waiters.delete(onFailure)
          reject(e)
        },
      )
    })
  }
}

/** The store with every write reported to `health`. */
export function trackWrites(store: DocStore, health: StorageHealth): DocStore {
  const track = async <T>(op: string, write: () => Promise<T>): Promise<T> => {
    try {
      const out = await write()
      health.succeeded()
      return out
    } catch (err) {
      health.failed(op)
      throw err
    }
  }
  return {
    load: (docId) => store.load(docId),
    append: (docId: string, firstSeq: number, entries: UpdateEntry[]) =>
      track('append', () => store.append(docId, firstSeq, entries)),
    appendMany: (writes: AppendWrite[], cycleId?: string) => track('append', () => store.appendMany(writes, cycleId)),
    writeSnapshot: (docId: string, snapshot: Snapshot) => track('snapshot', () => store.writeSnapshot(docId, snapshot)),
    readLog: (docId, from, to) => store.readLog(docId, from, to),
    // a refused prune is a caller's mistake, not storage failing
    prune: (docId, uptoSeq) => store.prune(docId, uptoSeq),
    readMeta: (docId, name) => store.readMeta(docId, name),
    writeMeta: (docId, name, value) => track('meta', () => store.writeMeta(docId, name, value)),
    claimMeta: (docId, name, value) => track('meta', () => store.claimMeta(docId, name, value)),
    ...(store.readMarks && { readMarks: (prefix: string) => store.readMarks!(prefix) }),
    ...(store.deleteMarks && { deleteMarks: (keys: string[]) => track('marks', () => store.deleteMarks!(keys)) }),
    exists: (docId) => store.exists(docId),
    listDocs: (prefix) => store.listDocs(prefix),
    eraseDocument: (docId) => track('erase', () => store.eraseDocument(docId)),
    close: () => store.close(),
  }
}
