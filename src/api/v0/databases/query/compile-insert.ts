// Rows of an insert body -> one INSERT statement (all rows or none). Columns are the union of the
// rows' keys in first-seen order; a row without one of them gets that column's DEFAULT.
import type { TableInfo } from '../../../../database-assets/table-info.js'
import { AppError } from '../../../../infra/errors.js'
import { ident, jsonRows, Params, qualified, type Statement } from './sql.js'
import { toParam } from './values.js'

/** PostgreSQL's limit on bind parameters in one statement. */
const MAX_PARAMS = 65_535

export type Row = Record<string, unknown>

/** Returns null for an empty row list: there is nothing to run. */
export function compileInsert(table: TableInfo, rows: readonly Row[], returning: boolean): Statement | null {
  if (rows.length === 0) return null
  const names: string[] = []
  const seen = new Set<string>()
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (seen.has(key)) continue
      if (!table.columns.has(key))
        throw new AppError(
          'bad_request',
          `column ${JSON.stringify(key)} of ${JSON.stringify(table.name)} does not exist (in body data)`,
        )
      seen.add(key)
      names.push(key)
    }
  }
  if (names.length * rows.length > MAX_PARAMS) {
    throw new AppError(
      'bad_request',
      `an insert may carry at most ${MAX_PARAMS} values (rows x columns); this one has ${names.length * rows.length}`,
    )
  }
  if (names.length === 0) {
    // Every row is `{}`: all defaults. Naming one column with DEFAULT works for any row count.
    const first = table.columns.keys().next()
    if (first.done) throw new AppError('bad_request', `${JSON.stringify(table.name)} has no columns to insert into`)
    names.push(first.value)
  }

  const p = new Params()
  const tuples = rows.map((row) => {
    const cells = names.map((name) =>
      Object.hasOwn(row, name) ? p.add(toParam(row[name], table.columns.get(name)!)) : 'DEFAULT',
    )
    return '(' + cells.join(', ') + ')'
  })
  const insert = `INSERT INTO ${qualified(table.schema, table.name)} (${names.map(ident).join(', ')}) VALUES ${tuples.join(', ')}`
  if (!returning) return { text: insert, values: p.values }
  return {
    text: `WITH _inserted AS (${insert} RETURNING *) SELECT ${jsonRows('_inserted')} FROM _inserted`,
    values: p.values,
  }
}
