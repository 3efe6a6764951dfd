// One SQL session on either side of a database copy: a PGlite data directory opened in this process
// (the source) or one pg connection (the target). One session, so SET lasts for the whole copy.
import type pg from 'pg'

export interface SqlSession {
  rows<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>
  exec(text: string): Promise<void>
  close(): Promise<void>
}

export async function openPgliteSession(dataDir: string): Promise<SqlSession> {
  const { PGlite } = await import('@electric-sql/pglite')
  const db = new PGlite({ dataDir })
  await db.waitReady
  return {
    rows: async <T>(text: string, values: unknown[] = []) => (await db.query<T>(text, values)).rows,
    exec: async (text) => void (await db.exec(text)),
    close: () => db.close(),
  }
}

export function pgSession(client: pg.Client): SqlSession {
  return {
    rows: async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows as T[],
    exec: async (text) => void (await client.query(text)),
    close: () => client.end(),
  }
}

/** The same rendering of values on both sides (dates, times, floats), whatever each server's defaults. */
export async function normaliseSession(s: SqlSession): Promise<void> {
  await s.exec(
    `SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1; SET search_path = ''`,
  )
}
