// Suggestions in PostgreSQL (src/storage/doc-records/postgres.ts): table doc_suggestions
// (src/pg/migrations.ts), one row per suggestion holding its record (jsonb) and update (`change`),
// keyed (doc_id, id). A decision is one conditional UPDATE on the record's rev, so two reviewers
// on different nodes never both win.
import type { PgPool } from '../pg/pool.js'
import { PgDocRecords, type PgTable } from '../storage/doc-records/postgres.js'
import type { SuggestionRecord } from './record.js'
import { SuggestionRecords } from './store.js'

const TABLE: PgTable<SuggestionRecord> = {
  table: 'doc_suggestions',
  body: 'change',
  columns: 'record',
  read: (r) => r.record as SuggestionRecord,
  write: (r) => ({ created_at_ms: r.created_at_ms, record: JSON.stringify(r) }),
  revision: "(record->>'rev')::int",
  what: 'suggestion storage',
}

export class PgSuggestionStore extends SuggestionRecords {
  constructor(pool: PgPool) {
    super(new PgDocRecords(pool, TABLE))
  }
}
