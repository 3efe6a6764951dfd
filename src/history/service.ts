// Document histories for the history routes, built per call and dropped after: the `history`
// record of the store and the log after it go into one job (job.ts), run in its turn among the
// process's transient Y.Docs (the room registry's DocBuilds: a few at once, counted in the memory
// budget), in a worker thread when large. Checkpoints are written back every few hundred entries,
// and history past the retention window is folded (then the log pruned). One call per document at
// a time; documents wait on one another only for a build turn.
import type { DocBuilds } from '../collab/room/doc-builds.js'
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'
import type { DocStore } from '../storage/doc-store.js'
import { jobBytes, jobInputBytes, type HistoryJob } from './job.js'
import { runJobOffLoop } from './job-thread.js'
import { LogPacker } from './log-pack.js'
import { foldPoint, type Fold } from './retention.js'
import type { AnswerOf, Task } from './task.js'
import { readRecordHead, type RecordHead } from './timeline.js'

export const RECORD_NAME = 'history'
const PRUNE_CHECK_EVERY_MS = 60 * 60 * 1000
/** documents whose last rollback is remembered (small records; past this the oldest is forgotten) */
const ROLLBACK_MEMOS = 1024

/** What the service asks of the process's transient Y.Docs: a turn, counted while it lasts. */
export type Builds = Pick<DocBuilds, 'bounded'>

export interface HistoryServiceOptions {
  store: DocStore
  config: Pick<Config, 'historyRetentionDays' | 'historyCheckpointEvery'>
  now: () => number
  /** the room registry's DocBuilds: a history is built in one of its turns, like any transient Y.Doc */
  builds: Builds
  log?: Pick<Logger, 'warn'>
  /** jobs over this many encoded bytes run in a worker thread (default: job-thread.ts) */
  inLoopMaxBytes?: number
}

/** Where a document's history starts (its base: everything before is folded) and ends. */
export type HistoryHead = RecordHead

/** The last rollback applied to a document: the same one again with nothing changed since is a no-op. */
export interface RollbackMemo {
  key: string
  seq: number
  who: string
}

/** A stored history before it is built: its record (or the base of one never written) and head. */
interface Source {
  from: HistoryJob['from']
  head: RecordHead
  /** the last seq the stored record holds */
  savedSeq: number
}

const EMPTY: Source = { from: { base: null }, head: { base: { seq: 0, at: 0 }, lastSeq: 0 }, savedSeq: 0 }

/** One per server (createServer builds it on first use): its per-document queues are shared by every caller. */
export class HistoryService {
  private queues = new Map<string, Promise<unknown>>()
  private pruneCheckedAt = new Map<string, number>()
  private rollbacks = new Map<string, RollbackMemo>()

  constructor(private readonly o: HistoryServiceOptions) {}

  /**
   * Applies the retention policy to every stored document (for a periodic timer): a history is
   * built only when a checkpoint or a fold is due. One document at a time.
   */
  async sweep(prefix = ''): Promise<number> {
    let n = 0
    for await (const docId of this.o.store.listDocs(prefix)) {
      await this.run(docId, () => ({ kind: 'none' }))
      n++
    }
    return n
  }

  /** After what is queued for the document: what the service remembers of it is dropped. */
  forget(docId: string): Promise<void> {
    const prev = this.queues.get(docId) ?? Promise.resolve()
    return prev.then(() => {
      this.rollbacks.delete(docId)
      this.pruneCheckedAt.delete(docId)
    })
  }

  /**
   * Answers the task `plan` makes of the head of the document's history (up to date with its log;
   * `plan` may throw to refuse before anything is built), then runs `after` with the answer, still
   * in the document's queue but past the build turn (a rollback applies its update there).
   */
  run<T extends Task>(
    docId: string,
    plan: (head: HistoryHead) => T,
    after?: (answer: AnswerOf<T>, head: HistoryHead) => Promise<void>,
  ): Promise<{ answer: AnswerOf<T>; head: HistoryHead }> {
    return this.queued(docId, async () => {
      const src = await this.source(docId)
      const checkedAt = this.o.now()
      const fold = await this.foldDue(docId, src.head, checkedAt)
      const log = new LogPacker()
      for await (const e of this.o.store.readLog(docId, (fold ? src.head.base.seq : src.head.lastSeq) + 1)) log.add(e)
      const head = { base: fold ?? src.head.base, lastSeq: Math.max(src.head.lastSeq, log.lastSeq) }
      const task = plan(head)
      const encode = fold !== null || head.lastSeq - src.savedSeq >= this.o.config.historyCheckpointEvery
      let answer = null as AnswerOf<T>
      if (task.kind !== 'none' || encode) {
        const job: HistoryJob<T> = { from: src.from, log: log.finish(), fold: fold?.seq ?? null, encode, task }
        const result = await this.o.builds.bounded(
          jobBytes(job),
          () => runJobOffLoop(job, this.o.inLoopMaxBytes),
          jobInputBytes(job),
        )
        // durable before the log it replaces goes
        if (result.record) await this.o.store.writeMeta(docId, RECORD_NAME, result.record)
        if (fold) {
          await this.o.store.prune(docId, fold.seq)
          this.pruneCheckedAt.set(docId, checkedAt)
        }
        answer = result.answer
      }
      await after?.(answer, head)
      return { answer, head }
    })
  }

  lastRollback(docId: string): RollbackMemo | undefined {
    return this.rollbacks.get(docId)
  }

  rememberRollback(docId: string, memo: RollbackMemo): void {
    this.rollbacks.delete(docId)
    this.rollbacks.set(docId, memo)
    if (this.rollbacks.size > ROLLBACK_MEMOS) this.rollbacks.delete(this.rollbacks.keys().next().value!)
  }

  private queued<T>(docId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(docId) ?? Promise.resolve()
    const run = prev.then(fn)
    const tail = run.catch(() => {})
    this.queues.set(docId, tail)
    void tail.then(() => {
      if (this.queues.get(docId) === tail) this.queues.delete(docId)
    })
    return run
  }

  private async source(docId: string): Promise<Source> {
    const record = await this.o.store.readMeta(docId, RECORD_NAME)
    if (record) {
      try {
        const head = readRecordHead(record)
        return { from: { record }, head, savedSeq: head.lastSeq }
      } catch (err) {
        // An unreadable record (another version) is only a cache while the log is whole.
        this.o.log?.warn({ err, docId }, 'history record unreadable; rebuilding from the log')
      }
    }
    // No history record but a log that no longer starts at 1: start from the stored snapshot.
    for await (const first of this.o.store.readLog(docId)) {
      if (first.seq === 1) break
      const { snapshot } = await this.o.store.load(docId)
      if (!snapshot) break
      const { seq, at, state } = snapshot
      return { from: { base: { seq, at, state } }, head: { base: { seq, at }, lastSeq: seq }, savedSeq: seq }
    }
    return EMPTY
  }

  /** The fold past the retention window, checked once an hour per document at most. */
  private async foldDue(docId: string, head: RecordHead, now: number): Promise<Fold | null> {
    const checked = this.pruneCheckedAt.get(docId)
    if (checked !== undefined && now - checked < PRUNE_CHECK_EVERY_MS && now >= checked) return null
    // The log may only be pruned up to the room's snapshot, which stands for it.
    const snapshotSeq = async () => (await this.o.store.load(docId)).snapshot?.seq ?? 0
    const fold = await foldPoint(
      this.o.store.readLog(docId, head.base.seq + 1),
      now,
      this.o.config.historyRetentionDays,
      snapshotSeq,
    )
    if (!fold) this.pruneCheckedAt.set(docId, now)
    return fold
  }
}
