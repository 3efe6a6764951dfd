// Copies one database asset's contents (as read by database-schema.ts) into an empty database, in
// one transaction on the target: all of it or nothing. Rows travel as row_to_json text and come back
// through json_populate_recordset, so every value is parsed by the target from the text its own type
// printed. Verification compares, table by table, the row count and a digest of every row's JSON
// (order-independent), and every sequence's position.
import type { DatabaseSchema } from './database-schema.js'
import type { SqlSession } from './sql-session.js'

const PAGE_ROWS = 500
const q = (name: string) => '"' + name.replace(/"/g, '""') + '"'

export interface DatabaseDigest {
  /** qualified table name -> `rows:digest` */
  tables: Map<string, string>
  /** qualified sequence name -> `last_value/is_called` */
  sequences: Map<string, string>
}

export async function copyDatabase(
  src: SqlSession,
  dst: SqlSession,
  schema: DatabaseSchema,
): Promise<{ rows: number }> {
  let rows = 0
  await dst.exec('BEGIN')
  try {
    for (const stmt of schema.before) await dst.exec(stmt)
    for (const t of schema.tables) {
      const cols = t.insertable.map(q).join(', ')
      const insert = `INSERT INTO ${t.name} (${cols}) ${t.identityAlways ? 'OVERRIDING SYSTEM VALUE ' : ''}SELECT ${cols} FROM json_populate_recordset(NULL::${t.name}, $1::json)`
      for (let offset = 0; ; offset += PAGE_ROWS) {
        const page = await src.rows<{ r: string }>(
          `SELECT row_to_json(t)::text AS r FROM ${t.name} t ORDER BY ctid LIMIT ${PAGE_ROWS} OFFSET ${offset}`,
        )
        if (page.length === 0) break
        if (t.insertable.length > 0) await dst.rows(insert, ['[' + page.map((p) => p.r).join(',') + ']'])
        rows += page.length
      }
    }
    for (const seq of schema.sequences) {
      const [s] = await src.rows<{ last: string; called: boolean }>(
        `SELECT last_value::text AS last, is_called AS called FROM ${seq}`,
      )
      await dst.rows('SELECT setval($1::regclass, $2::bigint, $3::boolean)', [seq, s!.last, s!.called])
    }
    for (const stmt of schema.after) await dst.exec(stmt)
    await dst.exec('COMMIT')
  } catch (e) {
    await dst.exec('ROLLBACK').catch(() => undefined)
    throw e
  }
  await dst.exec('ANALYZE') // row estimates in the table list, as the source had them
  return { rows }
}

export async function digestDatabase(s: SqlSession, schema: DatabaseSchema): Promise<DatabaseDigest> {
  const tables = new Map<string, string>()
  for (const t of schema.tables) {
    const [r] = await s.rows<{ n: number; d: string }>(
      `SELECT count(*)::int AS n, coalesce(md5(string_agg(h, '' ORDER BY h)), '') AS d FROM (SELECT md5(row_to_json(t)::text) AS h FROM ${t.name} t) x`,
    )
    tables.set(t.name, `${r!.n}:${r!.d}`)
  }
  const sequences = new Map<string, string>()
  for (const seq of schema.sequences) {
    const [r] = await s.rows<{ v: string }>(`SELECT last_value::text || '/' || is_called::text AS v FROM ${seq}`)
    sequences.set(seq, r!.v)
  }
  return { tables, sequences }
}

/** Differences between a source and a target digest, as lines for the report. */
export function digestDifferences(what: string, a: DatabaseDigest, b: DatabaseDigest): string[] {
  const out: string[] = []
  for (const [kind, x, y] of [
    ['table', a.tables, b.tables],
    ['sequence', a.sequences, b.sequences],
  ] as const) {
    for (const [name, v] of x)
      if (y.get(name) !== v) out.push(`${what}: ${kind} ${name} ${y.has(name) ? 'differs' : 'missing'}`)
  }
  return out
}
