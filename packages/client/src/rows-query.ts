// The read-rows filter language (PostgREST-style) as typed options, written into the query string
// the server parses (src/api/v0/databases/query/ in the server). Values are sent as text; the
// server casts them to the column's type.
import type { CompareOp, IsValue, OrderTerm } from './types.js'

type Scalar = string | number | boolean

/**
 * One condition on a column: `{ gt: 5 }`, `{ ilike: '*ann*' }`, `{ in: [1, 2] }`, `{ is: null }`, `{ not: { eq: 3 } }`.
 */
export type ColumnFilter =
  | { [K in CompareOp]: { [P in K]: Scalar } }[CompareOp]
  | { in: Scalar[] }
  | { is: null | boolean | IsValue }
  | { not: ColumnFilter }

export interface RowsQuery {
  /** columns to return (`alias:column` renames); all when absent */
  select?: string[]
  /** terms in order: `{ column: 'id', direction: 'desc', nulls: 'last' }` */
  order?: OrderTerm[]
  limit?: number
  offset?: number
  /** conditions ANDed together; several on one column as a list */
  where?: Record<string, ColumnFilter | ColumnFilter[]>
}

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'and', 'or', 'not.and', 'not.or'])

/** A value inside `in.(...)`: quoted when it holds a character the list syntax gives a meaning to. */
function listItem(v: Scalar): string {
  const s = String(v)
  return /[,()"\\\s]/.test(s) || s === '' ? `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"` : s
}

function expr(f: ColumnFilter): string {
  if ('not' in f) return `not.${expr(f.not)}`
  if ('in' in f) return `in.(${f.in.map(listItem).join(',')})`
  if ('is' in f) return `is.${f.is === null ? 'null' : String(f.is)}`
  const [op, value] = Object.entries(f)[0] as [CompareOp, Scalar]
  return `${op}.${String(value)}`
}

export function rowsSearchParams(q: RowsQuery = {}): URLSearchParams {
  const p = new URLSearchParams()
  if (q.select) p.set('select', q.select.join(','))
  if (q.order)
    p.set(
      'order',
      q.order.map((t) => [t.column, t.direction, t.nulls && `nulls${t.nulls}`].filter(Boolean).join('.')).join(','),
    )
  if (q.limit !== undefined) p.set('limit', String(q.limit))
  if (q.offset !== undefined) p.set('offset', String(q.offset))
  for (const [column, filters] of Object.entries(q.where ?? {})) {
    // A column named like a reserved parameter cannot be filtered by name; the server would read it as that parameter.
    if (RESERVED.has(column))
      throw new TypeError(`cannot filter column ${JSON.stringify(column)}: the name is a reserved query parameter`)
    for (const f of Array.isArray(filters) ? filters : [filters]) p.append(column, expr(f))
  }
  return p
}
