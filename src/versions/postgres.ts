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

// Renames only when updated_at_ms is still the expected one; answers the row as it is afterwards
// with whether this statement changed it (a failed check answers the current row, unchanged).
const RENAME_SQL = `
  WITH u AS (
    UPDATE doc_versions SET name = $3, updated_at_ms = GREATEST($5::bigint, updated_at_ms + 1)
     WHERE doc_id = $1 AND id = $2 AND updated_at_ms = $4
    RETURNING ${COLUMNS}
  )
  SELECT ${COLUMNS}, true AS renamed FROM u
  UNION ALL
  SELECT ${COLUMNS}, false FROM doc_versions WHERE doc_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM u)`

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
    const [row] = await this.query<Row & { renamed: boolean }>(RENAME_SQL, [docId, id, name, expected, now])
    if (!row) return null
    return row.renamed ? { ok: true, record: recordOf(row) } : { ok: false, current: recordOf(row) }
  }

  async remove(docId: string, id: string): Promise<boolean> {
    const rows = await this.query('DELETE FROM doc_versions WHERE doc_id = $1 AND id = $2 RETURNING id', [docId, id])
    return rows.length > 0
  }

  async erase(docId: string): Promise<void> {
    await this.query('DELETE FROM doc_versions WHERE doc_id = $1', [docId])
  }
}
