// A JSON value from an insert body -> the text of a bind parameter for one column. The server
// parses the text with the column's own input function, so a bad value is the database's 22xxx
// error (a 400), never a silent coercion here.
// Numbers a double cannot hold arrive as exact numbers (src/api/exact-json.ts) and go as their digits.
import type { ColumnInfo } from '../../../../database-assets/table-info.js'
import { exactJsonText, isExactNumber } from '../../../exact-json.js'

export function toParam(value: unknown, column: ColumnInfo): string | null {
  if (value === null || value === undefined) return null
  // json/jsonb hold the JSON value itself: the string "a" is stored as the JSON string "a".
  if (column.json) return exactJsonText(value)
  if (Array.isArray(value) && column.category === 'A') return arrayLiteral(value)
  if (isExactNumber(value)) return value.toString()
  if (typeof value === 'object') return exactJsonText(value)
  return String(value)
}

/** A PostgreSQL array literal with every element double-quoted and escaped. */
function arrayLiteral(items: unknown[]): string {
  const parts = items.map((item) => {
    if (item === null || item === undefined) return 'NULL'
    if (Array.isArray(item)) return arrayLiteral(item)
    const text = isExactNumber(item) ? item.toString() : typeof item === 'object' ? exactJsonText(item) : String(item)
    return '"' + text.replace(/[\\"]/g, '\\$&') + '"'
  })
  return '{' + parts.join(',') + '}'
}
