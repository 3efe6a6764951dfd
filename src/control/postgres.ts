// The control store on PostgreSQL: one row per record in control_records (key text COLLATE "C",
// value json), shared by every Tandem process on the database.
//
// serial(k, fn) guarantee, across processes: fn runs inside a transaction that first takes
// pg_advisory_xact_lock on (schema, k), and every call fn makes on this store goes to that
// transaction (AsyncLocalStorage). So two read-modify-writes of one key, in any processes, never
// interleave, and fn's writes commit together when fn returns (or none do if it throws or the
// connection is lost: the lock and the writes live and die with the same transaction). What fn
// asks to run afterCommit (batch hooks: notices to other nodes) runs after COMMIT, before serial
// resolves, and not at all after a rollback. Local callers of one key queue in memory first,
// holding no connection. At most half the pool runs serial transactions at once, so plain queries
// (and fn's own work outside this store) always find a connection and a pool full of lock waiters
// cannot deadlock. fn must not wait on another
// process's serial of a key it already holds (as with any lock order); nested serial() inside fn
// joins fn's transaction.
import { AsyncLocalStorage } from 'node:async_hooks'
import type pg from 'pg'
import type { PgPool } from '../pg/pool.js'
import { QueryTimeoutError, storageError } from '../storage/postgres/errors.js'
import { KeyQueue } from '../infra/key-queue.js'
import { prefixRange, type ControlRecord, type ControlStore, type Op } from './store.js'

interface Tx {
  client: pg.PoolClient
  /** false once the transaction ended: work fn started in the background falls back to the pool */
  open: boolean
  /** a statement failed (or timed out, and may yet complete): the transaction must not commit */
  failed: boolean
  /** afterCommit callbacks, run once COMMIT succeeded (dropped on rollback) */
  committed: (() => Promise<void>)[]
}

/** A counting semaphore: waiters are served in arrival order. */
class Slots {
  private readonly waiting: (() => void)[] = []
  constructor(private free: number) {}
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--
      return
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve))
  }
  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.free++
  }
}

/** PostgreSQL text cannot hold NUL, and lone surrogates would be re-encoded: such keys cannot exist. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const storable = (k: string) => !k.includes('\0') && !LONE_SURROGATE.test(k)

function checkKey(k: string): void {
  if (!storable(k))
    throw new Error(`control store: key ${JSON.stringify(k)} cannot be stored (NUL or unpaired surrogate)`)
}

const SERIAL_FAILED = 'control store: a statement of this serial update failed, so none of its writes were kept'

export interface PgControlStoreOptions {
  /** Tandem's schema, part of every lock name so deployments sharing a database never contend. */
  schema: string
  /** serial transactions at once in this process (default: half the pool) */
  maxSerial: number
  /**
   * ms a statement may take (lock waits included) before its connection counts as lost and is
   * closed: a PostgreSQL that hangs (a partition) answers 503 instead of holding requests forever.
   */
  queryTimeoutMs?: number
}

export class PgControlStore implements ControlStore {
  private readonly queue = new KeyQueue()
  private readonly tx = new AsyncLocalStorage<Tx>()
  private readonly slots: Slots
  private readonly timeoutMs: number

  constructor(
    private readonly pool: PgPool,
    private readonly o: PgControlStoreOptions,
  ) {
    this.slots = new Slots(Math.max(1, o.maxSerial))
    this.timeoutMs = o.queryTimeoutMs ?? 30_000
  }

  /** pg's read timeout, as the error the rest of Tandem knows for a hung PostgreSQL */
  private unavailable(err: unknown): unknown {
    const timedOut = err instanceof Error && err.message === 'Query read timeout'
    return storageError(timedOut ? new QueryTimeoutError(this.timeoutMs) : err, 'control plane storage')
  }

  /** On a client, with the deadline; a timed-out client is closed by whoever releases it with the error. */
  private run<R extends pg.QueryResultRow>(
    on: pg.Pool | pg.PoolClient,
    text: string,
    params: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return on.query<R>({ text, values: params, query_timeout: this.timeoutMs } as pg.QueryConfig)
  }

  /** A statement on the current serial transaction, else on the pool; losing PostgreSQL is a 503 (retry). */
  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    const t = this.tx.getStore()
    const inTx = t?.open ? t : undefined
    try {
      return await this.run<R>(inTx ? inTx.client : this.pool, text, params)
    } catch (err) {
      if (inTx) inTx.failed = true
      throw this.unavailable(err)
    }
  }

  async get<T>(k: string): Promise<T | undefined> {
    if (!storable(k)) return undefined
    const { rows } = await this.query<{ value: T }>('SELECT value FROM control_records WHERE key = $1', [k])
    return rows[0]?.value
  }

  async getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    const wanted = keys.filter(storable)
    if (wanted.length === 0) return keys.map(() => undefined)
    const { rows } = await this.query<{ key: string; value: T }>(
      'SELECT key, value FROM control_records WHERE key = ANY($1::text[])',
      [wanted],
    )
    const found = new Map(rows.map((r) => [r.key, r.value]))
    return keys.map((k) => found.get(k))
  }

  /** One statement, hence one atomic write and one round trip: deletes and upserts together. */
  async batch(ops: Op[]): Promise<void> {
    if (ops.length === 0) return
    // LevelDB applies a batch in order, so the last op on a key wins: keep only that one.
    const last = new Map<string, Op>()
    for (const op of ops) {
      checkKey(op.key)
      last.delete(op.key)
      last.set(op.key, op)
    }
    const putKeys: string[] = []
    const putValues: string[] = []
    const delKeys: string[] = []
    for (const op of last.values()) {
      if (op.type === 'del') delKeys.push(op.key)
      else {
        const json = JSON.stringify(op.value)
        if (json === undefined) throw new Error(`control store: the value of ${JSON.stringify(op.key)} is not JSON`)
        putKeys.push(op.key)
        putValues.push(json)
      }
    }
    await this.query(
      `WITH gone AS (DELETE FROM control_records WHERE key = ANY($3::text[]))
       INSERT INTO control_records (key, value)
       SELECT k, v::json FROM unnest($1::text[], $2::text[]) AS t(k, v)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [putKeys, putValues, delKeys],
    )
  }

  async list<T>(prefix: string, limit = 100_000): Promise<ControlRecord<T>[]> {
    if (!storable(prefix)) return []
    const { gt, lt } = prefixRange(prefix)
    const { rows } = await this.query<ControlRecord<T>>(
      'SELECT key, value FROM control_records WHERE key > $1 AND key < $2 ORDER BY key LIMIT $3',
      [gt, lt, limit],
    )
    return rows
  }

  async scan(after: string, limit: number): Promise<ControlRecord[]> {
    const { rows } = await this.query<ControlRecord>(
      'SELECT key, value FROM control_records WHERE key > $1 ORDER BY key LIMIT $2',
      [after, limit],
    )
    return rows
  }

  async serial<T>(k: string, fn: () => Promise<T>): Promise<T> {
    const lockName = `${this.o.schema}/${k}`
    const outer = this.tx.getStore()
    if (outer?.open) {
      // Nested: the same transaction takes the second key's lock too (released at its commit).
      const client = outer.client
      return this.queue.run(k, async () => {
        await this.run(client, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockName]).catch(
          (err: unknown) => {
            throw this.unavailable(err)
          },
        )
        return fn()
      })
    }
    const committed: (() => Promise<void>)[] = []
    const out = await this.queue.run(k, async () => {
      await this.slots.acquire()
      try {
        return await this.inTransaction(lockName, committed, fn).catch((err: unknown) => {
          throw this.unavailable(err)
        })
      } finally {
        this.slots.release()
      }
    })
    // Committed, the lock and the connection given back: the callbacks may use the pool.
    for (const f of committed) await f()
    return out
  }

  afterCommit(fn: () => Promise<void>): Promise<void> {
    const t = this.tx.getStore()
    if (!t?.open) return fn()
    t.committed.push(fn)
    return Promise.resolve()
  }

  private async inTransaction<T>(lockName: string, committed: Tx['committed'], fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    const t: Tx = { client, open: true, failed: false, committed }
    let broken: Error | undefined
    try {
      await this.run(client, 'BEGIN')
      await this.run(client, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockName])
      const out = await this.tx.run(t, fn)
      t.open = false
      // A statement fn caught the failure of: nothing of this update is kept (a timed-out one
      // might still complete, so committing could keep what fn believes failed).
      if (t.failed) throw new Error(SERIAL_FAILED)
      // COMMIT of a transaction an earlier statement aborted rolls back.
      const done = await this.run(client, 'COMMIT')
      if (done.command !== 'COMMIT') throw new Error(SERIAL_FAILED)
      return out
    } catch (err) {
      t.open = false
      await this.run(client, 'ROLLBACK').catch((e: Error) => (broken = e))
      throw err
    } finally {
      // A connection that could not roll back is discarded, never reused mid-transaction.
      client.release(broken)
    }
  }
}
