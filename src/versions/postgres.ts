// Named versions in PostgreSQL (src/storage/doc-records/postgres.ts): table doc_versions
// (src/pg/migrations.ts), one row per version holding its record as columns and its state, keyed
// (doc_id, id). A rename is one conditional UPDATE on updated_at_ms, so two renames racing on
// different nodes never both win.
import type { PgPool } from '../pg/pool.js'
import { PgDocRecords, type PgTable } from '../storage/doc-records/postgres.js'
import type { VersionRecord } from './record.js'
import { VersionRecords } from './store.js'

const TABLE: PgTable<VersionRecord> = {
  table: 'doc_versions',
  body: 'state',
  columns: 'id, name, seq, created_at_ms, updated_at_ms, by_user',
  // bigint columns come back as strings
  read: (r) => ({
    id: r.id as string,
    name: r.name as string,
    seq: Number(r.seq),
    created_at_ms: Number(r.created_at_ms),
    updated_at_ms: Number(r.updated_at_ms),
    by: r.by_user as string,
  }),
  write: (r) => ({
    name: r.name,
    seq: r.seq,
    created_at_ms: r.created_at_ms,
    updated_at_ms: r.updated_at_ms,
    by_user: r.by,
  }),
  revision: 'updated_at_ms',
  what: 'version storage',
}

export class PgVersionStore extends VersionRecords {
  constructor(pool: PgPool) {
    super(new PgDocRecords(pool, TABLE))
  }
}
