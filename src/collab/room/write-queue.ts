// A room's accepted updates on their way to storage: queued for the process's group commit (one
// storage write per cycle across rooms), one batch in flight at a time, given back in front of
// what came since when a write fails, so nothing accepted is dropped and order is kept.
import type { AppendWrite, Attributes, UpdateEntry } from '../../storage/doc-store.js'
import type { Peer } from '../peer.js'

/**
 * One accepted update on its way to storage. A class with every field set at construction: the
 * write path reads these on every update, and objects that grew fields later (a seq once
 * durable, a waiter once asked) took V8's slow property lookups (docs/perf/rooms.md).
 */
export class Queued implements UpdateEntry {
  /** the update's seq in the document's log, once durable */
  seq: number | undefined = undefined
  done: { resolve: (seq?: number) => void; reject: (e: unknown) => void } | undefined = undefined

  constructor(
    readonly user: string,
    readonly at: number,
    readonly update: Uint8Array,
    readonly origin: Peer | null,
    readonly receivedAt: number,
    readonly attrs: Attributes | undefined,
  ) {}
}

export class WriteQueue {
  private pending: Queued[] = []
  private inFlight: Queued[] | null = null

  get hasUnflushed(): boolean {
    return this.pending.length > 0 || this.inFlight !== null
  }

  /** bytes of updates accepted and not yet durable */
  get bytes(): number {
    let n = 0
    for (const q of this.pending) n += q.update.length
    if (this.inFlight) for (const q of this.inFlight) n += q.update.length
    return n
  }

  push(
    update: Uint8Array,
    user: string,
    at: number,
    origin: Peer | null,
    attrs: Attributes | undefined,
    receivedAt: number,
  ): Queued {
    const q = new Queued(user, at, update, origin, receivedAt, attrs)
    this.pending.push(q)
    return q
  }

  /** Everything queued, in order, as one write; null while a write is in flight or nothing waits. */
  take(docId: string, firstSeq: number | undefined): AppendWrite | null {
    if (this.inFlight || this.pending.length === 0) return null
    const batch = (this.inFlight = this.pending)
    this.pending = []
    const entries = batch.map(({ user, at, update, attrs }): UpdateEntry =>
      attrs ? { user, at, update, attrs } : { user, at, update },
    )
    return firstSeq === undefined ? { docId, entries } : { docId, firstSeq, entries }
  }

  /** The write in flight failed: back in front of anything queued since. */
  giveBack(): void {
    if (!this.inFlight) return
    this.pending = this.inFlight.concat(this.pending)
    this.inFlight = null
  }

  /** The write in flight is durable: its updates, to broadcast and acknowledge. */
  landed(): Queued[] | null {
    const batch = this.inFlight
    this.inFlight = null
    return batch
  }

  /** Drops what is queued and what failed in flight, failing their callers (hard delete). */
  dropQueued(err: unknown): void {
    const queued = this.pending
    this.pending = []
    for (const q of queued) q.done?.reject(err)
  }

  dropInFlight(err: unknown): void {
    const batch = this.inFlight ?? []
    this.inFlight = null
    for (const q of batch) q.done?.reject(err)
  }
}
