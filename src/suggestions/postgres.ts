// Suggestions in PostgreSQL: table doc_suggestions (src/pg/migrations.ts), one row per suggestion
// holding its record (jsonb) and update, keyed (doc_id, id). A decision is one conditional UPDATE
// on the record's rev, so two reviewers on different nodes never both win.
import type { PgPool } from '../pg/pool.js'
import { storageError } from '../storage/postgres/errors.js'
import { newestFirst, type SuggestionRecord } from './record.js'
import type { SuggestionStore } from './store.js'

export class PgSuggestionStore implements SuggestionStore {
  constructor(private readonly pool: PgPool) {}

  private async query<R extends object>(text: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, params)).rows
    } catch (err) {
      throw storageError(err, 'suggestion storage')
    }
  }

  async create(docId: string, r: SuggestionRecord, update: Uint8Array): Promise<void> {
    await this.query('INSERT INTO doc_suggestions (doc_id, id, created_at_ms, record, change) VALUES ($1, $2, $3, $4, $5)', [
      docId,
      r.id,
      r.created_at_ms,
      JSON.stringify(r),
      Buffer.from(update.buffer, update.byteOffset, update.byteLength),
    ])
  }

  async list(docId: string): Promise<SuggestionRecord[]> {
    const rows = await this.query<{ record: SuggestionRecord }>('SELECT record FROM doc_suggestions WHERE doc_id = $1', [docId])
    return rows.map((r) => r.record).sort(newestFirst)
  }

  async get(docId: string, id: string): Promise<SuggestionRecord | null> {
    const [row] = await this.query<{ record: SuggestionRecord }>('SELECT record FROM doc_suggestions WHERE doc_id = $1 AND id = $2', [docId, id])
    return row?.record ?? null
  }

  async update(docId: string, id: string): Promise<Uint8Array | null> {
    const [row] = await this.query<{ change: Buffer }>('SELECT change FROM doc_suggestions WHERE doc_id = $1 AND id = $2', [docId, id])
    return row ? new Uint8Array(row.change.buffer, row.change.byteOffset, row.change.byteLength) : null
  }

  async replace(docId: string, next: SuggestionRecord): Promise<boolean> {
    const rows = await this.query(
      `UPDATE doc_suggestions SET record = $3 WHERE doc_id = $1 AND id = $2 AND (record->>'rev')::int = $4 RETURNING id`,
      [docId, next.id, JSON.stringify(next), next.rev - 1],
    )
    return rows.length > 0
  }

  async erase(docId: string): Promise<void> {
    await this.query('DELETE FROM doc_suggestions WHERE doc_id = $1', [docId])
  }
}
