// PostgreSQL document store over Tandem's schema (tables in src/pg/migrations.ts, search_path set
// by the pool). One write cycle is one INSERT statement (atomic on its own, one round trip); a
// load is one statement (snapshot and the log after it read from one MVCC snapshot); the log is
// read in keyset pages so a long history never sits in memory at once.
import type { PgPool } from '../../pg/pool.js'
import { randomUUID } from 'node:crypto'
import {
  assignsSeqs,
  type AppendedSeqs,
  type AppendWrite,
  type DocState,
  type DocStore,
  type Snapshot,
  type StoredUpdate,
  type StoreMark,
  type UpdateEntry,
} from '../doc-store.js'
import { appendAssigningSeqs, findCycle, type Queryable, type Statement } from './assign-seqs.js'
import {
  APPEND_SQL,
  buf,
  bytes,
  columns,
  ERASE_SQL,
  LIST_SQL,
  LOAD_SQL,
  prefixUpperBound,
  PRUNE_SQL,
  sameAttrs,
  seqsPerWrite,
  storedOf,
  type PendingRow,
  type Row,
} from './log-sql.js'
import { withMarks } from './marks-sql.js'
import { statementName } from './prepared.js'
import { QueryTimeoutError, isUnavailable, storageError } from './errors.js'

const LOG_PAGE_ROWS = 500
const UNIQUE_VIOLATION = '23505'

export interface PgDocStoreOptions {
  /**
   * ms a statement may take before its connection is treated as lost and closed. A server that
   * hangs (a partition) instead of refusing would otherwise hold a write, and the rooms behind it,
   * without ever reporting a failure. A write timed out here may still commit; its retry finds
   * the rows already there (appendMissing).
   */
  queryTimeoutMs?: number
}

export class PgDocStore implements DocStore {
  private readonly timeoutMs: number

  constructor(
    private readonly pool: PgPool,
    o: PgDocStoreOptions = {},
  ) {
    this.timeoutMs = o.queryTimeoutMs ?? 30_000
  }

  private async query<R extends object>(text: string, params: unknown[]): Promise<R[]> {
    try {
      return await this.run<R>(text, params)
    } catch (err) {
      throw storageError(err)
    }
  }

  /**
   * One statement on a pooled connection, which is closed (not reused) when it timed out or broke.
   * `name`: a statement of every write cycle, kept prepared on each connection (prepared.ts).
   */
  private async run<R extends object>(text: string, params: unknown[], name?: string): Promise<R[]> {
    const client = await this.pool.connect()
    let timer: NodeJS.Timeout | undefined
    const result = client.query<R>({ text, values: params, ...(name ? { name } : {}) })
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueryTimeoutError(this.timeoutMs)), this.timeoutMs)
    })
    try {
      const { rows } = await Promise.race([result, deadline])
      client.release()
      return rows
    } catch (err) {
      result.catch(() => {}) // a timed-out query settles later (or never); nobody waits for it
      client.release(err instanceof QueryTimeoutError || isUnavailable(err) ? (err as Error) : undefined)
      throw err
    } finally {
      clearTimeout(timer)
    }
  }

  async load(docId: string): Promise<DocState> {
    const rows = await this.query<Row & { kind: number }>(LOAD_SQL, [docId])
    let snapshot: Snapshot | null = null
    const updates: StoredUpdate[] = []
    for (const r of rows) {
      if (r.kind === 0) snapshot = { seq: Number(r.seq), at: Number(r.at_ms), state: bytes(r.body) }
      else updates.push(storedOf(r))
    }
    // prune only drops entries a snapshot covers, so the snapshot's seq keeps lastSeq when the log is empty
    const lastSeq = updates.length ? updates[updates.length - 1]!.seq : (snapshot?.seq ?? 0)
    return { snapshot, updates, lastSeq }
  }

  append(docId: string, firstSeq: number, entries: UpdateEntry[]): Promise<void> {
    return this.appendMany([{ docId, firstSeq, entries }]).then(() => undefined)
  }

  async appendMany(writes: AppendWrite[], cycleId?: string): Promise<AppendedSeqs[]> {
    const marks = writes.flatMap((w) => w.marks ?? [])
    if (assignsSeqs(writes)) return this.appendAssigning(writes, cycleId ?? `${randomUUID()}`, marks)
    const seqs = writes.map(({ docId, firstSeq, entries }) => ({
      docId,
      firstSeq: firstSeq!,
      lastSeq: firstSeq! + entries.length - 1,
    }))
    const rows = writes.flatMap(({ docId, firstSeq, entries }) =>
      entries.map((e, i) => ({ docId, seq: firstSeq! + i, ...e })),
    )
    if (rows.length === 0) return seqs
    try {
      const [text, params] = withMarks(APPEND_SQL, columns(rows), marks)
      await this.run(text, params, statementName(text))
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw storageError(err)
      // A retried cycle whose first attempt committed but whose answer was lost (connection
      // dropped after COMMIT): rows already there must be these very rows; the rest go in now.
      await this.appendMissing(rows, marks)
    }
    return seqs
  }

  /**
   * Cluster mode: the database assigns seqs under the head row lock (assign-seqs.ts). If the
   * answer is lost (connection dropped, timeout) the cycle may still have committed: it is looked
   * up by its id, so a retry never appends it a second time under new seqs.
   */
  private async appendAssigning(writes: AppendWrite[], cycleId: string, marks: StoreMark[]): Promise<AppendedSeqs[]> {
    const db: Queryable = {
      query: async <R extends object>(q: Statement) => ({ rows: await this.run<R>(q.text, q.values, q.name) }),
    }
    let assigned
    try {
      assigned = await appendAssigningSeqs(db, writes, cycleId, marks)
    } catch (err) {
      if (!(err instanceof QueryTimeoutError || isUnavailable(err))) throw storageError(err)
      const found = await findCycle(db, cycleId).catch(() => null)
      if (!found) throw storageError(err)
      assigned = found
    }
    return seqsPerWrite(writes, assigned)
  }

  private async appendMissing(rows: PendingRow[], marks: StoreMark[]): Promise<void> {
    const existing = await this.query<Row>(
      `SELECT u.doc_id, u.seq, u.user_id, u.at_ms, u.body, u.attrs FROM doc_updates u
         JOIN unnest($1::text[], $2::bigint[]) AS k(doc_id, seq) ON u.doc_id = k.doc_id AND u.seq = k.seq`,
      [rows.map((r) => r.docId), rows.map((r) => String(r.seq))],
    )
    const stored = new Map(existing.map((r) => [`${r.doc_id}\n${r.seq}`, r]))
    const missing: PendingRow[] = []
    for (const r of rows) {
      const s = stored.get(`${r.docId}\n${r.seq}`)
      if (!s) missing.push(r)
      else if (
        s.user_id !== r.user ||
        Number(s.at_ms) !== r.at ||
        !buf(r.update).equals(s.body) ||
        !sameAttrs(s.attrs, r.attrs)
      ) {
        throw new Error(`append conflict: ${r.docId} already has a different update at seq ${r.seq}`)
      }
    }
    if (missing.length === 0) return // the first attempt committed them, and the marks with them
    await this.query(...withMarks(APPEND_SQL, columns(missing), marks))
  }

  async writeSnapshot(docId: string, snapshot: Snapshot): Promise<void> {
    await this.query(
      `INSERT INTO doc_snapshots (doc_id, seq, at_ms, state) VALUES ($1, $2, $3, $4)
       ON CONFLICT (doc_id) DO UPDATE SET seq = excluded.seq, at_ms = excluded.at_ms, state = excluded.state
       WHERE doc_snapshots.seq <= excluded.seq`,
      [docId, snapshot.seq, snapshot.at, buf(snapshot.state)],
    )
  }

  async *readLog(docId: string, from = 1, to = Number.MAX_SAFE_INTEGER): AsyncIterable<StoredUpdate> {
    let next = from
    for (;;) {
      const rows = await this.query<Row>(
        'SELECT seq, user_id, at_ms, body, attrs FROM doc_updates WHERE doc_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [docId, next, to, LOG_PAGE_ROWS],
      )
      for (const r of rows) yield storedOf(r)
      if (rows.length < LOG_PAGE_ROWS) return
      next = Number(rows[rows.length - 1]!.seq) + 1
    }
  }

  async prune(docId: string, uptoSeq: number): Promise<void> {
    const [row] = await this.query<{ snap: string | null }>(PRUNE_SQL, [docId, uptoSeq])
    if (Number(row?.snap ?? 0) < uptoSeq) throw new Error('prune past the snapshot would lose updates')
  }

  async readMeta(docId: string, name: string): Promise<Uint8Array | null> {
    const [row] = await this.query<{ value: Buffer }>('SELECT value FROM doc_meta WHERE doc_id = $1 AND name = $2', [
      docId,
      name,
    ])
    return row ? bytes(row.value) : null
  }

  async writeMeta(docId: string, name: string, value: Uint8Array): Promise<void> {
    await this.query(
      'INSERT INTO doc_meta (doc_id, name, value) VALUES ($1, $2, $3) ON CONFLICT (doc_id, name) DO UPDATE SET value = excluded.value',
      [docId, name, buf(value)],
    )
  }

  async claimMeta(docId: string, name: string, value: Uint8Array): Promise<Uint8Array> {
    // The insert wins or waits for the one that did; its row is then read by a later statement
    // (this one's snapshot may predate a concurrent winner's commit).
    const [won] = await this.query<{ value: Buffer }>(
      'INSERT INTO doc_meta (doc_id, name, value) VALUES ($1, $2, $3) ON CONFLICT (doc_id, name) DO NOTHING RETURNING value',
      [docId, name, buf(value)],
    )
    if (won) return bytes(won.value)
    const stands = await this.readMeta(docId, name)
    if (!stands) throw new Error(`side record ${name} of ${docId} neither claimed nor standing`)
    return stands
  }

  async *readMarks(prefix: string): AsyncIterable<StoreMark> {
    const rows = await this.query<{ key: string; value: string }>(
      'SELECT key, value FROM doc_marks WHERE starts_with(key, $1) ORDER BY key',
      [prefix],
    )
    yield* rows
  }

  async deleteMarks(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.query('DELETE FROM doc_marks WHERE key = ANY($1::text[])', [keys])
  }

  async exists(docId: string): Promise<boolean> {
    const [row] = await this.query<{ e: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM doc_snapshots WHERE doc_id = $1)
           OR EXISTS (SELECT 1 FROM doc_updates WHERE doc_id = $1) AS e`,
      [docId],
    )
    return row?.e === true
  }

  async *listDocs(prefix = ''): AsyncIterable<string> {
    const rows = await this.query<{ doc_id: string }>(LIST_SQL, [prefix, prefixUpperBound(prefix)])
    for (const r of rows) yield r.doc_id
  }

  async eraseDocument(docId: string): Promise<void> {
    await this.query(ERASE_SQL, [docId])
  }

  async close(): Promise<void> {
    // The pool is owned (and ended) by whoever opened it (src/compose/backend.ts).
  }
}
