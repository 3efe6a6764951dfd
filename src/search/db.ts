// Where the search index's SQL runs: PostgreSQL (--postgres-url, shared by every node of a cluster)
// or PGlite in the data dir (the embedded default). Both run sql.ts unchanged.
export interface SearchDb {
  readonly engine: 'postgres' | 'pglite'
  /** One statement; every parameter as the text PostgreSQL parses; rows as arrays. */
  query(sql: string, params: readonly (string | null)[]): Promise<unknown[][]>
  /** Reclaims the space of replaced rows where nothing else does (PGlite runs no autovacuum). */
  maintain(): Promise<void>
  close(): Promise<void>
}
