// Named versions in PostgreSQL: table doc_versions (src/pg/migrations.ts), one row per version
// holding its record and state, keyed (doc_id, id). A rename is one conditional UPDATE, so two
// renames racing on different nodes never both win.
import type { PgPool } from '../pg/pool.js'
import { storageError } from '../storage/postgres/errors.js'
import { newestFirst, type VersionRecord } from './record.js'
import type { RenameResult, VersionStore } from './store.js'

interface Row {
  id: string
  name: string
  seq: string
  created_at_ms: string
  updated_at_ms: string
  by_user: string
}

const COLUMNS = 'id, name, seq, created_at_ms, updated_at_ms, by_user'

const recordOf = (r: Row): VersionRecord => ({
  id: r.id,
  name: r.name,
  seq: Number(r.seq),
  created_at_ms: Number(r.created_at_ms),
  updated_at_ms: Number(r.updated_at_ms),
  by: r.by_user,
})

// Renames only when updated_at_ms is still the expected one. A failed check reads the current row
// in a statement of its own: a rename racing on another node makes this UPDATE wait for its commit
// and then fail the check, but a SELECT in the same statement would still answer the row as the
// statement's snapshot had it (READ COMMITTED), i.e. the record before the winner's rename.
const RENAME_SQL = `
  UPDATE doc_versions SET name = $3, updated_at_ms = GREATEST($5::bigint, updated_at_ms + 1)
   WHERE doc_id = $1 AND id = $2 AND updated_at_ms = $4
  RETURNING ${COLUMNS}`

const CURRENT_SQL = `SELECT ${COLUMNS} FROM doc_versions WHERE doc_id = $1 AND id = $2`

export class PgVersionStore implements VersionStore {
  constructor(private readonly pool: PgPool) {}

  private async query<R extends object>(text: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, params)).rows
    } catch (err) {
      throw storageError(err, 'version storage')
    }
  }

  async create(docId: string, r: VersionRecord, state: Uint8Array): Promise<void> {
    await this.query(
      `INSERT INTO doc_versions (doc_id, ${COLUMNS}, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [docId, r.id, r.name, r.seq, r.created_at_ms, r.updated_at_ms, r.by, Buffer.from(state.buffer, state.byteOffset, state.byteLength)],
    )
  }

  async list(docId: string): Promise<VersionRecord[]> {
    const rows = await this.query<Row>(`SELECT ${COLUMNS} FROM doc_versions WHERE doc_id = $1`, [docId])
    return rows.map(recordOf).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<VersionRecord | null> {
    const [row] = await this.query<Row>(`SELECT ${COLUMNS} FROM doc_versions WHERE doc_id = $1 AND id = $2`, [docId, id])
    return row ? recordOf(row) : null
  }

  async state(docId: string, id: string): Promise<Uint8Array | null> {
    const [row] = await this.query<{ state: Buffer }>('SELECT state FROM doc_versions WHERE doc_id = $1 AND id = $2', [docId, id])
    return row ? new Uint8Array(row.state.buffer, row.state.byteOffset, row.state.byteLength) : null
  }

  async rename(docId: string, id: string, name: string, expected: number, now: number): Promise<RenameResult> {
    const [renamed] = await this.query<Row>(RENAME_SQL, [docId, id, name, expected, now])
    if (renamed) return { ok: true, record: recordOf(renamed) }
    const [current] = await this.query<Row>(CURRENT_SQL, [docId, id])
    return current ? { ok: false, current: recordOf(current) } : null
  }

  async remove(docId: string, id: string): Promise<boolean> {
    const rows = await this.query('DELETE FROM doc_versions WHERE doc_id = $1 AND id = $2 RETURNING id', [docId, id])
    return rows.length > 0
  }

  async erase(docId: string): Promise<void> {
    await this.query('DELETE FROM doc_versions WHERE doc_id = $1', [docId])
  }
}
