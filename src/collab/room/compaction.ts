// Compaction: the log since the last snapshot is folded into a new snapshot covering what is
// durable, with the document's garbage collected (deleted content dropped, as a Y.Doc with gc
// keeps it), so the encoded state tracks live content rather than the whole past. Without a
// deletion since the last snapshot there is nothing to collect and no Y.Doc is built. Updates
// held for a missing dependency go into the snapshot merged behind their gap, as a Y.Doc's
// pending structs go into its encoded state: a load cuts them off and holds them again
// (doc-state.ts), so a gap that never fills neither blocks compaction nor is lost by it.
import { mergeUpdates } from 'yjs'
import type { Logger } from '../../infra/log.js'
import type { DocStore } from '../../storage/doc-store.js'
import type { DocBuilds } from './doc-builds.js'
import type { DocState } from './doc-state.js'

/** A snapshot write takes far less; the lease outlives a slow one and expires soon after a crash. */
export interface ClusterCompaction {
  /** the bus watermark: every seq up to it applied here, so a snapshot may cover it */
  watermark(docId: string): number | undefined
  /** the document's compaction lease (null: another node compacts it now; skip) */
  compactLease(docId: string): Promise<{ release(): Promise<void> } | null>
}

export interface CompactionOptions {
  docId: string
  store: DocStore
  log: Logger
  now: () => number
  builds: DocBuilds
  cluster?: ClusterCompaction
  state: () => DocState
  /** the served state was replaced by its collected form */
  collected: () => void
}

export class Compaction {
  private snapshotSeq = 0
  private running: Promise<void> | null = null

  constructor(private readonly o: CompactionOptions) {}

  loaded(snapshotSeq: number): void {
    this.snapshotSeq = snapshotSeq
  }

  /** Compacts when `threshold` updates were logged since the last snapshot; `sized` learns the new size. */
  maybeCompact(lastSeq: number, threshold: number, sized: (bytes: number) => void): Promise<void> | void {
    if (lastSeq - this.snapshotSeq < threshold || this.running) return
    return this.compact(lastSeq, sized)
  }

  compact(lastSeq: number, sized: (bytes: number) => void): Promise<void> {
    this.running ??= this.run(lastSeq, sized).finally(() => (this.running = null))
    return this.running
  }

  private async run(lastSeq: number, sized: (bytes: number) => void): Promise<void> {
    if (!this.o.cluster) return this.write(lastSeq, sized)
    // Once per cluster: two nodes with the document loaded would write the same snapshot twice.
    const lease = await this.o.cluster.compactLease(this.o.docId).catch(() => null)
    if (!lease) return
    try {
      // Another node's seq below ours may not be applied yet here: cover only the watermark.
      await this.write(this.o.cluster.watermark(this.o.docId) ?? 0, sized)
    } finally {
      await lease.release().catch(() => undefined)
    }
  }

  private async write(seq: number, sized: (bytes: number) => void): Promise<void> {
    const state = this.o.state()
    if (seq <= this.snapshotSeq) return
    const deletions = state.deletionsSinceCompaction
    // Folded beside the room (a large one in a worker); the room serves on meanwhile.
    const parts = state.pinParts()
    const held = state.heldPart()
    try {
      const folded = parts.length === 1 && deletions === 0 ? parts[0]! : await this.o.builds.fold(parts, deletions > 0)
      if (folded !== parts[0] && state.replacePrefix(parts, folded)) this.o.collected()
      const snapshot = held ? mergeUpdates([folded, held]) : folded
      await this.o.store.writeSnapshot(this.o.docId, { seq, at: this.o.now(), state: snapshot })
      this.snapshotSeq = seq
      state.deletionsSinceCompaction -= deletions // what was deleted meanwhile waits for the next one
      sized(snapshot.length)
    } catch (err) {
      this.o.log.error({ err, docId: this.o.docId }, 'snapshot write failed; the log still holds every update')
    } finally {
      state.unpin()
    }
  }
}
