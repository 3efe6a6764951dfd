// Tandem's schema, as versioned migrations applied in order at start (src/pg/migrate.ts). A
// migration is never edited once released: changes go into a new version appended here.
import { DOC_HEADS_MIGRATION } from '../storage/postgres/assign-seqs.js'

export interface Migration {
  version: number
  name: string
  /** SQL run inside the migration transaction, with search_path set to Tandem's schema */
  sql: string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'documents',
    // Attributed update log, one snapshot per document, and named side records (history
    // checkpoints). Ids are compared bytewise (COLLATE "C") so prefix listings match LevelDB's.
    sql: `
      CREATE TABLE doc_updates (
        doc_id  text COLLATE "C" NOT NULL,
        seq     bigint NOT NULL,
        user_id text NOT NULL,
        at_ms   bigint NOT NULL,
        body    bytea NOT NULL,
        PRIMARY KEY (doc_id, seq)
      );
      CREATE TABLE doc_snapshots (
        doc_id text COLLATE "C" PRIMARY KEY,
        seq    bigint NOT NULL,
        at_ms  bigint NOT NULL,
        state  bytea NOT NULL
      );
      CREATE TABLE doc_meta (
        doc_id text COLLATE "C" NOT NULL,
        name   text COLLATE "C" NOT NULL,
        value  bytea NOT NULL,
        PRIMARY KEY (doc_id, name)
      );
    `,
  },
  {
    version: 2,
    name: 'control-plane',
    // The control plane is a set of JSON records under ordered string keys (src/control/store.ts):
    // `<kind>/<id>...`, listed by key range, so the bytewise collation keeps LevelDB's order and the
    // primary key serves every lookup and listing. json, not jsonb: the record comes back exactly as
    // written (key order, and strings holding \u0000, which jsonb refuses).
    sql: `
      CREATE TABLE control_records (
        key   text COLLATE "C" PRIMARY KEY,
        value json NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'signing-keys',
    // Private Ed25519 JWKs; the newest (highest position) signs, every one verifies. The first
    // process inserts position 1 if absent (src/auth/pg-keys.ts); rotation appends the next.
    sql: `
      CREATE TABLE signing_keys (
        kid        text PRIMARY KEY,
        position   bigint NOT NULL UNIQUE,
        jwk        jsonb NOT NULL,
        created_ms bigint NOT NULL
      );
    `,
  },
  // Store-assigned seqs for cluster mode (src/storage/postgres/assign-seqs.ts, docs/cluster.md).
  { version: 4, ...DOC_HEADS_MIGRATION },
]
