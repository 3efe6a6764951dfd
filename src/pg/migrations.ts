// Tandem's schema, as versioned migrations applied in order at start (src/pg/schema.ts). A
// migration is never edited once released: changes go into a new version appended here.

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
    // process inserts position 1 if absent (src/auth/keys/postgres.ts); rotation appends the next.
    sql: `
      CREATE TABLE signing_keys (
        kid        text PRIMARY KEY,
        position   bigint NOT NULL UNIQUE,
        jwk        jsonb NOT NULL,
        created_ms bigint NOT NULL
      );
    `,
  },
  {
    version: 4,
    // Store-assigned seqs for cluster mode (src/storage/postgres/assign-seqs.ts, docs/cluster.md):
    // the head table, backfilled from the log and the snapshots (a fully pruned log leaves the
    // snapshot's seq as the head), and the cycle id column a retried cycle is found by.
    name: 'doc-heads',
    sql: `
      CREATE TABLE doc_heads (
        doc_id   text COLLATE "C" PRIMARY KEY,
        last_seq bigint NOT NULL
      );
      INSERT INTO doc_heads (doc_id, last_seq)
        SELECT doc_id, max(seq) FROM (
          SELECT doc_id, max(seq) AS seq FROM doc_updates GROUP BY doc_id
          UNION ALL SELECT doc_id, seq FROM doc_snapshots
        ) s GROUP BY doc_id;
      ALTER TABLE doc_updates ADD COLUMN cycle text;
      CREATE INDEX doc_updates_cycle ON doc_updates (cycle) WHERE cycle IS NOT NULL;
    `,
  },
  {
    version: 5,
    // Named versions (src/versions/): each row holds the record and the document's full encoded
    // state when it was taken, so retention pruning the log never makes a version unreadable.
    // Everything of a document is under its doc_id (a hard delete is one DELETE).
    name: 'doc-versions',
    sql: `
      CREATE TABLE doc_versions (
        doc_id        text COLLATE "C" NOT NULL,
        id            text COLLATE "C" NOT NULL,
        name          text NOT NULL,
        seq           bigint NOT NULL,
        created_at_ms bigint NOT NULL,
        updated_at_ms bigint NOT NULL,
        by_user       text NOT NULL,
        state         bytea NOT NULL,
        PRIMARY KEY (doc_id, id)
      );
    `,
  },
  {
    version: 6,
    // Custom attributions of an update (`{"source": "ai"}`), beside its user; NULL (the common
    // case, and every row written before) reads as none.
    name: 'update-attributions',
    sql: `ALTER TABLE doc_updates ADD COLUMN attrs jsonb;`,
  },
  {
    version: 7,
    // Marks written in the same statement as a cycle's appends (AppendWrite.marks: the webhooks
    // outbox's document.updated windows, src/webhooks/doc-windows.ts).
    name: 'doc-marks',
    sql: `
      CREATE TABLE doc_marks (
        key   text COLLATE "C" PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
  {
    version: 8,
    // Suggestions (src/suggestions/): a change held for review, its record and Yjs update in one
    // row; decisions compare-and-set the record's rev. Everything of a document under its doc_id.
    name: 'doc-suggestions',
    sql: `
      CREATE TABLE doc_suggestions (
        doc_id        text COLLATE "C" NOT NULL,
        id            text COLLATE "C" NOT NULL,
        created_at_ms bigint NOT NULL,
        record        jsonb NOT NULL,
        change        bytea NOT NULL,
        PRIMARY KEY (doc_id, id)
      );
    `,
  },
]
