// A PGlite database in its own worker thread. The query deadline is enforced by terminating the
// thread (PGlite ignores statement_timeout); the database recovers from its WAL on the next open.
// A data directory is never open twice in this process: the directory is released only once the
// thread has exited.
import type { Worker } from 'node:worker_threads'
import { DbError } from '../db-error.js'
import type { DbInstance, SqlResult } from '../instance.js'
import type { FromWorker, ToWorker } from './protocol.js'
import { sharedWasmModule, spawnWorker } from './spawn.js'

export interface PgliteOptions {
  dataDir: string
  deadlineMs: number
  sharedBuffersMb: number
  /** gives up on a worker that is not ready in time (a fresh directory runs initdb first) */
  startTimeoutMs?: number
}

const openDirs = new Set<string>()

interface Pending {
  resolve(r: SqlResult): void
  reject(e: DbError): void
  timer: NodeJS.Timeout
}

export class PgliteInstance implements DbInstance {
  private seq = 0
  private readonly pending = new Map<number, Pending>()
  private exitListeners: (() => void)[] = []
  private closing = false
  private readonly exited: Promise<void>

  private constructor(
    private readonly worker: Worker,
    private readonly opts: PgliteOptions,
  ) {
    this.exited = new Promise((resolve) => {
      worker.once('exit', () => {
        openDirs.delete(opts.dataDir)
        this.failAll(new DbError('crashed', 'embedded database stopped'))
        if (!this.closing) for (const fn of this.exitListeners) fn()
        this.exitListeners = []
        resolve()
      })
    })
    worker.on('message', (m: FromWorker) => this.onMessage(m))
    worker.on('error', () => undefined) // followed by 'exit', handled there
  }

  static async open(opts: PgliteOptions): Promise<PgliteInstance> {
    if (openDirs.has(opts.dataDir)) throw new DbError('crashed', 'database directory is already open')
    openDirs.add(opts.dataDir)
    let worker: Worker
    try {
      const wasmModule = await sharedWasmModule()
      worker = spawnWorker({
        dataDir: opts.dataDir,
        conf: [`shared_buffers=${opts.sharedBuffersMb}MB`],
        ...(wasmModule ? { wasmModule } : {}),
      })
    } catch (e) {
      openDirs.delete(opts.dataDir)
      throw new DbError('crashed', `embedded database failed to start: ${(e as Error).message}`)
    }
    const instance = new PgliteInstance(worker, opts)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail('embedded database did not start in time'), opts.startTimeoutMs ?? 120_000)
      const fail = (why: string) => {
        clearTimeout(timer)
        worker.off('message', onReady)
        void worker.terminate()
        reject(new DbError('crashed', why))
      }
      const onReady = (m: FromWorker) => {
        if (m.type === 'ready') {
          clearTimeout(timer)
          worker.off('message', onReady)
          worker.off('exit', onEarlyExit)
          resolve()
        } else if (m.type === 'open-failed') fail(`embedded database failed to start: ${m.message}`)
      }
      const onEarlyExit = () => fail('embedded database exited while starting')
      worker.on('message', onReady)
      worker.once('exit', onEarlyExit)
    })
    return instance
  }

  query(sql: string, params: readonly (string | null)[]): Promise<SqlResult> {
    return this.send((id) => ({ type: 'query', id, sql, params: [...params] }))
  }

  async script(sql: string): Promise<void> {
    await this.send((id) => ({ type: 'script', id, sql }))
  }

  private send(message: (id: number) => ToWorker): Promise<SqlResult> {
    if (this.closing) return Promise.reject(new DbError('crashed', 'embedded database is closing'))
    const id = ++this.seq
    return new Promise<SqlResult>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(id), this.opts.deadlineMs)
      this.pending.set(id, { resolve, reject, timer })
      this.worker.postMessage(message(id))
    })
  }

  onExit(fn: () => void): void {
    this.exitListeners.push(fn)
  }

  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true
      this.worker.postMessage({ type: 'close' })
      const force = setTimeout(() => void this.worker.terminate(), 10_000)
      await this.exited
      clearTimeout(force)
    }
    return this.exited
  }

  /** The statement `id` ran past the deadline: stop the thread; the open is redone on demand. */
  private kill(id: number): void {
    const p = this.pending.get(id)
    if (!p) return
    this.pending.delete(id)
    p.reject(new DbError('deadline', `statement exceeded the ${this.opts.deadlineMs} ms query deadline`))
    void this.worker.terminate()
  }

  private onMessage(m: FromWorker): void {
    if (m.type === 'closed') {
      void this.worker.terminate() // the port is closed; make sure the thread ends promptly
      return
    }
    if (m.type !== 'result' && m.type !== 'error') return
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    clearTimeout(p.timer)
    if (m.type === 'result') p.resolve({ rows: m.rows, rowCount: m.rowCount })
    else p.reject(new DbError('sql', m.error.message, m.error))
  }

  private failAll(e: DbError): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer)
      p.reject(e)
    }
    this.pending.clear()
  }
}
