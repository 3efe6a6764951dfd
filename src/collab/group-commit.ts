// Group commit: one storage write in flight for the whole process. Rooms queue their updates;
// each cycle takes everything queued across rooms into one `appendMany` (one LevelDB batch, one
// multi-row INSERT), and only once it is durable do the rooms number and broadcast their share.
// Whatever arrives while a write is in flight waits for the next cycle, so under load the number
// of storage writes per second stays bounded by the store's latency, not by the update rate.
import type { Logger } from '../infra/log.js'
import { backoffMs, type Backoff } from '../infra/backoff.js'
import type { Metrics } from '../infra/metrics.js'
import * as Y from 'yjs'
import type { AppendedSeqs, AppendWrite, DocStore } from '../storage/doc-store.js'

/** What the committer needs from a room (one per document). */
export interface CommitSource {
  readonly docId: string
  /** Moves everything queued, in order, into one write, or null when nothing is queued. */
  takeBatch(): AppendWrite | null
  /** The write is durable (under `seqs`): broadcast, acknowledge. A promise returned (compaction) ends the cycle. */
  committed(write: AppendWrite, seqs: AppendedSeqs): void | Promise<void>
  /** The write failed: the batch goes back in front of anything queued since, unacknowledged. */
  restore(write: AppendWrite): void
}

/** Something else told about every cycle (a store-health check, a cluster bus publishing the updates). */
export interface CommitSink {
  /**
   * Called once per cycle before it is written: may attach marks (AppendWrite.marks) that land
   * atomically with the cycle (the webhooks outbox). Synchronous and cheap: it is on the write path.
   */
  mark?(writes: AppendWrite[]): void
  /** Called once per durable cycle, after the rooms broadcast. */
  committed?(writes: readonly AppendWrite[]): void
  /** Called once per failed cycle; the cycle is retried with backoff. */
  failed?(err: unknown): void
}

export interface GroupCommitOptions {
  store: DocStore
  log: Logger
  metrics: Metrics
  sinks?: CommitSink[]
  /**
   * Least ms from one cycle's start to the next one's (0: back to back). What arrives meanwhile
   * shares the next cycle: fewer storage writes, and one merged frame per room instead of one
   * per update, which is most of a broadcast's cost (a socket write per peer).
   */
  minIntervalMs?: number
  /**
   * Cluster mode: each committed cycle (one merged update per document, under its store-assigned
   * seqs) goes to the bus, and the cycle is acknowledged only once the bus accepted it.
   */
  cluster?: {
    /** unique per node: cycle ids are `<prefix>:<counter>`, so a lost answer can be looked up */
    cycleIdPrefix: string
    publish(cycle: { docId: string; fromSeq: number; toSeq: number; update: Uint8Array }[]): Promise<void>
  }
}

/** a failed cycle is retried after 50 ms, doubling up to 5 s */
const RETRY: Backoff = { firstMs: 50, maxMs: 5000 }

export class GroupCommitter {
  /** rooms with queued updates, in the order they first queued */
  private dirty = new Set<CommitSource>()
  private running = false
  private scheduled = false
  private failures = 0
  private cycleWaiters: (() => void)[] = []
  private readonly sinks: CommitSink[]
  private cycles = 0
  private lastCycleStart = -Infinity

  constructor(private readonly o: GroupCommitOptions) {
    this.sinks = [...(o.sinks ?? [])]
  }

  addSink(sink: CommitSink): void {
    this.sinks.push(sink)
  }

  /** A room queued something: it joins the next cycle. */
  enqueue(source: CommitSource): void {
    this.dirty.add(source)
    if (this.running || this.scheduled) return
    // The first update after a quiet spell waits one turn, so a tick's messages share the write.
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      void this.run()
    })
  }

  /** Resolves when the cycle in flight (or about to start) has ended, written or failed. */
  nextCycle(): Promise<void> {
    if (!this.running && !this.scheduled) return Promise.resolve()
    return new Promise((resolve) => this.cycleWaiters.push(resolve))
  }

  get idle(): boolean {
    return !this.running && !this.scheduled && this.dirty.size === 0
  }

  private async run(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      while (this.dirty.size > 0) {
        const wait = this.lastCycleStart + (this.o.minIntervalMs ?? 0) - performance.now()
        if (wait >= 1) await new Promise((r) => setTimeout(r, wait))
        this.lastCycleStart = performance.now()
        const sources = [...this.dirty]
        this.dirty.clear()
        const taken: [CommitSource, AppendWrite][] = []
        for (const s of sources) {
          const w = s.takeBatch()
          if (w) taken.push([s, w])
        }
        if (taken.length > 0) await this.cycle(taken)
        this.wakeWaiters()
      }
    } finally {
      this.running = false
      this.wakeWaiters()
    }
  }

  private async cycle(taken: [CommitSource, AppendWrite][]): Promise<void> {
    const writes = taken.map(([, w]) => w)
    const t0 = performance.now()
    let seqs: AppendedSeqs[]
    const cluster = this.o.cluster
    for (const sink of this.sinks) if (sink.mark) callSink(() => sink.mark!(writes), this.o.log)
    try {
      seqs = await this.o.store.appendMany(writes, cluster ? `${cluster.cycleIdPrefix}:${++this.cycles}` : undefined)
    } catch (err) {
      // Nothing is acknowledged: every room keeps its updates (in memory, applied) and the whole
      // cycle is retried after a backoff, with whatever arrived meanwhile.
      this.failures++
      this.o.log.error({ err, docs: writes.length, attempt: this.failures }, 'update log write failed')
      for (const [s, w] of taken) {
        s.restore(w)
        this.dirty.add(s)
      }
      for (const sink of this.sinks) callSink(() => sink.failed?.(err), this.o.log)
      await new Promise((r) => setTimeout(r, backoffMs(this.failures, RETRY)))
      return
    }
    this.failures = 0
    this.o.metrics.persistLatency.observe((performance.now() - t0) / 1000)
    if (cluster) await this.publish(cluster, writes, seqs)
    const followUps: Promise<void>[] = []
    for (const [i, [s, w]] of taken.entries()) {
      // One room's failure after the write (a broadcast, a snapshot) must not stall the others.
      try {
        const after = s.committed(w, seqs[i]!)
        if (after) followUps.push(after)
      } catch (err) {
        this.o.log.error({ err, docId: s.docId }, 'room failed after its updates were written')
      }
    }
    for (const sink of this.sinks) callSink(() => sink.committed?.(writes), this.o.log)
    // Compactions of this cycle end before the next one starts, so each room's snapshot and
    // appends stay in order.
    if (followUps.length > 0) await Promise.allSettled(followUps)
  }

  /**
   * Durable, now visible to the other nodes before anyone is acknowledged. While Redis is down
   * this waits (the bus's outbox holds the cycle); rooms keep applying meanwhile. A refusal means
   * the bus closed (drain): the cycle is committed, and other nodes read it from storage on their
   * resync, so it is acknowledged anyway.
   */
  private async publish(
    cluster: NonNullable<GroupCommitOptions['cluster']>,
    writes: AppendWrite[],
    seqs: AppendedSeqs[],
  ): Promise<void> {
    const cycle = writes
      .map((w, i) => ({
        docId: w.docId,
        fromSeq: seqs[i]!.firstSeq,
        toSeq: seqs[i]!.lastSeq,
        update: w.entries.length === 1 ? w.entries[0]!.update : Y.mergeUpdates(w.entries.map((e) => e.update)),
      }))
      .filter((u) => u.toSeq >= u.fromSeq)
    try {
      await cluster.publish(cycle)
    } catch (err) {
      this.o.log.error({ err, docs: cycle.length }, 'bus publish refused; peers will read the cycle from storage')
    }
  }

  private wakeWaiters(): void {
    const waiters = this.cycleWaiters
    this.cycleWaiters = []
    for (const w of waiters) w()
  }
}

/** A sink's failure is logged, never allowed to undo or stall the cycle. */
function callSink(fn: () => void, log: Logger): void {
  try {
    fn()
  } catch (err) {
    log.error({ err }, 'commit sink failed')
  }
}
