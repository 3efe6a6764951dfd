// Per-document records in PostgreSQL: one table per kind of record (src/pg/migrations.ts), one row
// per record keyed (doc_id, id), its body in a bytea column. A replace is one conditional UPDATE
// on the revision, so two writers on different nodes never both win.
import type { PgPool } from '../../pg/pool.js'
import { storageError } from '../postgres/errors.js'
import { newestFirst, type DocRecord, type DocRecords } from './store.js'

type Row = Record<string, unknown>

/**
 * How one kind of record sits in its table: fixed once rows are written, or they no longer read
 * back. Every name here is a constant of the code, never input: they go into the SQL as written.
 */
export interface PgTable<R> {
  table: string
  /** the bytea column holding the body */
  body: string
  /** the columns a record is read from (`read` gets them) */
  columns: string
  read(row: Row): R
  /** the columns a record is written to, beside doc_id, id and the body, with their values */
  write(r: R): Row
  /** SQL of the number replace compares */
  revision: string
  /** what an outage names: `version storage` */
  what: string
}

export class PgDocRecords<R extends DocRecord> implements DocRecords<R> {
  constructor(
    private readonly pool: PgPool,
    private readonly t: PgTable<R>,
  ) {}

  private async query(text: string, params: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query<Row>(text, params)).rows
    } catch (err) {
      throw storageError(err, this.t.what)
    }
  }

  async create(docId: string, record: R, body: Uint8Array): Promise<void> {
    const written = this.t.write(record)
    const columns = ['doc_id', 'id', ...Object.keys(written), this.t.body]
    const values = [docId, record.id, ...Object.values(written), bytea(body)]
    await this.query(
      `INSERT INTO ${this.t.table} (${columns.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    )
  }

  async list(docId: string): Promise<R[]> {
    const rows = await this.query(`SELECT ${this.t.columns} FROM ${this.t.table} WHERE doc_id = $1`, [docId])
    return rows.map((r) => this.t.read(r)).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<R | null> {
    const [row] = await this.query(`SELECT ${this.t.columns} FROM ${this.t.table} WHERE doc_id = $1 AND id = $2`, [
      docId,
      id,
    ])
    return row ? this.t.read(row) : null
  }

  async body(docId: string, id: string): Promise<Uint8Array | null> {
    const [row] = await this.query(`SELECT ${this.t.body} AS body FROM ${this.t.table} WHERE doc_id = $1 AND id = $2`, [
      docId,
      id,
    ])
    const b = row?.body as Buffer | undefined
    return b ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : null
  }

  async replace(docId: string, next: R, expected: number, body?: Uint8Array): Promise<boolean> {
    const written = Object.entries({ ...this.t.write(next), ...(body ? { [this.t.body]: bytea(body) } : {}) })
    const sets = written.map(([column], i) => `${column} = $${i + 4}`).join(', ')
    const rows = await this.query(
      `UPDATE ${this.t.table} SET ${sets} WHERE doc_id = $1 AND id = $2 AND ${this.t.revision} = $3 RETURNING id`,
      [docId, next.id, expected, ...written.map(([, v]) => v)],
    )
    return rows.length > 0
  }

  async remove(docId: string, id: string): Promise<boolean> {
    const rows = await this.query(`DELETE FROM ${this.t.table} WHERE doc_id = $1 AND id = $2 RETURNING id`, [docId, id])
    return rows.length > 0
  }

  async erase(docId: string): Promise<void> {
    await this.query(`DELETE FROM ${this.t.table} WHERE doc_id = $1`, [docId])
  }
}

const bytea = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
