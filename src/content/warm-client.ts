// The server's side of the warm content worker (warm-jobs.ts): which seq each warm copy has
// reached, the catch-up it needs (the log entries since, or the whole document when the copy is
// new, gone or past a gap), and one call at a time per document. A call that changes the copy
// (an edit) keeps the document to itself until its update is durable, so no other call reads an
// update that is not; if the write fails, the copy is dropped. Part reads and targeted edits always
// run there, whatever the document's size: the views of their bases are kept there (view-shelf.ts).
import type { Worker } from 'node:worker_threads'
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { AppError, type ErrorCode } from '../infra/errors.js'
import { IN_LOOP_MAX_BYTES, startWorker } from '../infra/worker-thread.js'
import { docIdOf } from '../storage/doc-store.js'
import { baseSealOf } from './base-token.js'
import { current, seqNow } from './state.js'
import type { Feed, ViewLabel, WarmAnswers, WarmJob, WarmReply, WarmRequest } from './warm-jobs.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_WARM_WORKER: string | undefined

const fromSources = import.meta.url.endsWith('.ts')

/** A worker with nothing to do for this long is stopped (its copies go with it). */
const IDLE_STOP_MS = 60_000

export interface WarmCall<T> {
  answer: T
  /** the log seq of the state the call ran on */
  seq: number
  /**
   * ends the call's hold on the document: `ok` false drops the copy (its write failed); `label`
   * names the view a targeted edit left by the base the write answers
   */
  release(ok?: boolean, label?: ViewLabel): void
}

/** The jobs a small document not warm yet may run in the loop instead. */
export type ColdJob = Extract<WarmJob, { kind: 'read' | 'edit' }>

/** A job that ran where the document is: warm, or (a small document not warm yet) in the loop. */
export type ColdRun = <J extends ColdJob>(job: J, state: Uint8Array) => WarmAnswers[J['kind']]

/** A job, or one made once the seq the call reads at is known (a view job names its base by it). */
type JobAt<J extends WarmJob> = J | ((seq: number) => J)

export class WarmClient {
  private worker: Worker | null = null
  private readonly waiting = new Map<number, { resolve(r: WarmReply): void; reject(e: Error): void }>()
  private nextId = 1
  /** per document key: the seq its warm copy reached */
  private readonly known = new Map<string, number>()
  private readonly locks = new Map<string, Promise<void>>()
  /** per document key: the name of the view its last targeted edit left, sent with its next call */
  private readonly labels = new Map<string, ViewLabel>()
  private idle: NodeJS.Timeout | null = null

  constructor(private readonly cold: ColdRun) {}

  /** Runs `job` on the document as it is now; an edit keeps the document until `release`. */
  async run<J extends WarmJob>(
    req: RestRequest,
    ctx: RestContext,
    job: JobAt<J>,
  ): Promise<WarmCall<WarmAnswers[J['kind']]>> {
    const docId = docIdOf(req.org, req.doc, req.cap.branch)
    // The seal of seq 0 names the document's storage epoch: an erased and rewritten document is another copy.
    const key = `${docId}\n${(await baseSealOf(ctx.store, docId)).seal({ seq: 0, own: [] })}`
    const release = await this.lock(key)
    try {
      const ran = await this.runLocked(req, ctx, key, docId, job)
      const held = ran.kind === 'targeted' || ran.kind === 'edit'
      let released = false
      const end = (ok = true, label?: ViewLabel) => {
        if (released) return
        released = true
        if (!ok) this.evict(key)
        else if (label) this.labels.set(key, label)
        release()
      }
      if (!held) end()
      return { answer: ran.answer, seq: ran.seq, release: end }
    } catch (err) {
      release()
      throw err
    }
  }

  private async runLocked<J extends WarmJob>(
    req: RestRequest,
    ctx: RestContext,
    key: string,
    docId: string,
    jobAt: JobAt<J>,
  ): Promise<{ answer: WarmAnswers[J['kind']]; seq: number; kind: J['kind'] }> {
    const jobOf = (seq: number) => (typeof jobAt === 'function' ? jobAt(seq) : jobAt)
    const seq = await seqNow(req, ctx)
    let known = this.known.get(key)
    let feed: Feed | null = null
    if (known !== undefined && known <= seq) {
      const updates: Uint8Array[] = []
      for await (const e of ctx.store.readLog(docId, known + 1)) {
        if (e.seq !== known + 1 + updates.length) break // a gap (history trimmed): catch up whole
        updates.push(e.update)
      }
      if (known + updates.length >= seq) {
        feed = { updates }
        known += updates.length
      }
    }
    if (!feed) {
      const now = await current(req, ctx)
      const job = jobOf(now.seq)
      if (now.state.length <= IN_LOOP_MAX_BYTES && !this.known.has(key) && (job.kind === 'read' || job.kind === 'edit'))
        return { answer: this.cold(job, now.state) as WarmAnswers[J['kind']], seq: now.seq, kind: job.kind }
      feed = { full: now.state }
      known = now.seq
    }
    let job = jobOf(known!)
    const label = this.labels.get(key)
    this.labels.delete(key)
    let reply = await this.post({ id: this.nextId++, key, feed, job, ...(label ? { label } : {}) })
    if ('missing' in reply) {
      // the worker let the copy go (its bound, or it restarted): catch up whole
      const now = await current(req, ctx)
      known = now.seq
      job = jobOf(known)
      reply = await this.post({ id: this.nextId++, key, feed: { full: now.state }, job })
    }
    if ('refused' in reply) {
      this.known.delete(key)
      throw new AppError(reply.refused.code as ErrorCode, reply.refused.message)
    }
    if (!('ok' in reply)) throw new Error('the warm content worker lost a document')
    this.known.set(key, known!)
    return { answer: reply.ok as WarmAnswers[J['kind']], seq: known!, kind: job.kind }
  }

  private evict(key: string): void {
    this.known.delete(key)
    this.labels.delete(key)
    if (this.worker) void this.post({ id: this.nextId++, key, evict: true }).catch(() => {})
  }

  /** Waits for the document's previous call; the returned function lets the next one in. */
  private async lock(key: string): Promise<() => void> {
    const before = this.locks.get(key) ?? Promise.resolve()
    let open!: () => void
    const mine = new Promise<void>((r) => (open = r))
    const chain = before.then(() => mine)
    this.locks.set(key, chain)
    await before
    return () => {
      open()
      if (this.locks.get(key) === chain) this.locks.delete(key)
    }
  }

  private post(req: WarmRequest): Promise<WarmReply> {
    const worker = this.start()
    if (this.idle) clearTimeout(this.idle)
    return new Promise<WarmReply>((resolve, reject) => {
      this.waiting.set(req.id, { resolve, reject })
      worker.postMessage(req)
    }).finally(() => {
      if (this.waiting.size === 0) {
        this.idle = setTimeout(() => this.stop(), IDLE_STOP_MS)
        this.idle.unref()
      }
    })
  }

  private start(): Worker {
    if (this.worker) return this.worker
    const compiled = typeof TANDEM_BUNDLED_WARM_WORKER === 'string' ? TANDEM_BUNDLED_WARM_WORKER : './warm-worker.js'
    const w = startWorker(
      fromSources,
      new URL('./warm-worker.ts', import.meta.url),
      new URL(compiled, import.meta.url),
      null,
    )
    w.unref()
    w.on('message', (reply: WarmReply | { id: number; failed: string }) => {
      const wait = this.waiting.get(reply.id)
      if (!wait) return
      this.waiting.delete(reply.id)
      if ('failed' in reply) wait.reject(new Error(`content worker: ${reply.failed}`))
      else wait.resolve(reply)
    })
    const lost = (why: Error) => {
      if (this.worker !== w) return
      this.worker = null
      this.known.clear()
      this.labels.clear()
      for (const wait of this.waiting.values()) wait.reject(why)
      this.waiting.clear()
    }
    w.on('error', lost)
    w.on('exit', (code) => lost(new Error(`the warm content worker exited with ${code}`)))
    this.worker = w
    return w
  }

  /** Stops the worker (idle, or the server closing); its copies go with it. */
  stop(): void {
    const w = this.worker
    if (!w || this.waiting.size) return
    this.worker = null
    this.known.clear()
    this.labels.clear()
    void w.terminate()
  }
}
