// The parsed form of a PostgREST-style read: what the caller asked for, before any column is
// checked against a table. Every node remembers the query parameter it came from, so a later
// error (unknown column, bad value) can name it.

export type CompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike'
export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown'

interface Base {
  /** query parameter this node was parsed from, e.g. `id` or `or` */
  param: string
  negate: boolean
}

export type Condition =
  | (Base & { kind: 'compare'; column: string; op: CompareOp; value: string })
  | (Base & { kind: 'in'; column: string; values: string[] })
  | (Base & { kind: 'is'; column: string; value: IsValue })
  | (Base & { kind: 'logic'; op: 'and' | 'or'; children: Condition[] })

export type SelectItem = { kind: 'star' } | { kind: 'column'; column: string; alias?: string }

export interface OrderTerm {
  column: string
  direction?: 'asc' | 'desc'
  nulls?: 'first' | 'last'
}

export interface ReadQuery {
  select: SelectItem[]
  /** ANDed together */
  where: Condition[]
  order: OrderTerm[]
  limit: number
  offset: number
}
