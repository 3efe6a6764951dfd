// A JSON value from an insert body -> the text of a bind parameter for one column. The server
// parses the text with the column's own input function, so a bad value is the database's 22xxx
// error (a 400), never a silent coercion here.
import type { ColumnInfo } from '../../../../databases/table-info.js'

export function toParam(value: unknown, column: ColumnInfo): string | null {
  if (value === null || value === undefined) return null
  // json/jsonb hold the JSON value itself: the string "a" is stored as the JSON string "a".
  if (column.json) return JSON.stringify(value)
  if (Array.isArray(value) && column.category === 'A') return arrayLiteral(value)
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** A PostgreSQL array literal with every element double-quoted and escaped. */
function arrayLiteral(items: unknown[]): string {
  const parts = items.map((item) => {
    if (item === null || item === undefined) return 'NULL'
    if (Array.isArray(item)) return arrayLiteral(item)
    const text = typeof item === 'object' ? JSON.stringify(item) : String(item)
    return '"' + text.replace(/[\\"]/g, '\\$&') + '"'
  })
  return '{' + parts.join(',') + '}'
}
