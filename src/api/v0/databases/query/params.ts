// The whole query string of a read -> ReadQuery. Reserved parameters: select, order, limit,
// offset, and, or, not.and, not.or. Every other parameter filters the column it names; repeated
// parameters AND together. limit and offset arrive already validated the FastAPI way (route.ts,
// pydantic 422s); here they get their defaults and the cap.
import type { Condition, ReadQuery } from '@tandem/api/query'
import { parseOpExpr } from './filter.js'
import { parseLogicParam } from './logic.js'
import { parseOrder } from './order.js'
import { Scanner } from './scanner.js'
import { parseSelect } from './select.js'

const DEFAULT_LIMIT = 100

export interface ReadLimits {
  /** a larger `limit` is lowered to this */
  maxLimit: number
  /** deepest and/or tree (levels) */
  maxLogicDepth: number
  limit?: number
  offset?: number
}

export function parseReadParams(entries: Iterable<[string, string]>, limits: ReadLimits): ReadQuery {
  const q: ReadQuery = {
    select: [{ kind: 'star' }],
    where: [],
    order: [],
    limit: Math.min(limits.limit ?? DEFAULT_LIMIT, limits.maxLimit),
    offset: limits.offset ?? 0,
  }
  for (const [key, value] of entries) {
    switch (key) {
      case 'limit':
      case 'offset':
        break
      case 'select':
        if (value !== '') q.select = parseSelect(value)
        break
      case 'order':
        if (value !== '') q.order = parseOrder(value)
        break
      case 'and':
      case 'or':
      case 'not.and':
      case 'not.or':
        if (value !== '') q.where.push(parseLogicParam(key, value, limits.maxLogicDepth))
        break
      default:
        // PostgREST ignores parameters with an empty value
        if (value !== '') q.where.push(parseFilterParam(key, value))
    }
  }
  return q
}

/** `id=eq.5`, `"odd.name"=is.null`: the key names the column, the value is the expression. */
function parseFilterParam(key: string, value: string): Condition {
  let column = key.trim()
  if (column.length >= 2 && column.startsWith('"') && column.endsWith('"')) {
    const ks = new Scanner(column, key)
    column = ks.quoted()
    if (!ks.done) ks.fail('unexpected text after the quoted column name')
  }
  return parseOpExpr(new Scanner(value, key), column, 'root')
}
