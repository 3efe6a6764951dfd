// One open database of one asset, whatever runs it. Statements are text with text parameters; the
// compiled statements return their rows as one JSON text value, so no driver-side type parsing
// is involved and both providers answer the same bytes.

export interface SqlResult {
  rows: unknown[][]
  /** rows affected (INSERT) or returned, when the driver reports it */
  rowCount: number | null
}

export interface DbInstance {
  /** Runs one statement (never several: extended protocol); rejects with a DbError. */
  query(sql: string, params: readonly (string | null)[]): Promise<SqlResult>
  /** Runs an operator's SQL script, several statements allowed (admin only, never request input). */
  script(sql: string): Promise<void>
  /** Closes for good; idempotent. */
  close(): Promise<void>
  /** Called once if the instance stops on its own (crash, deadline kill); not on close(). */
  onExit(fn: () => void): void
}
