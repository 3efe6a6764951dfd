// The whole query string of a read -> ReadQuery. Reserved parameters: select, order, limit,
// offset, and, or, not.and, not.or. Every other parameter filters the column it names; repeated
// parameters AND together. limit/offset are validated like FastAPI's int query parameters (422).
import { AppError } from '../../../../infra/errors.js'
import type { Condition, ReadQuery } from './ast.js'
import { parseOpExpr } from './filter.js'
import { parseLogicParam } from './logic.js'
import { parseOrder } from './order.js'
import { Scanner } from './scanner.js'
import { parseSelect } from './select.js'

export const DEFAULT_LIMIT = 100

export interface ReadLimits {
  /** a larger `limit` is lowered to this */
  maxLimit: number
}

export interface FieldError {
  type: string
  loc: (string | number)[]
  msg: string
  input: unknown
  ctx?: Record<string, unknown>
}

export function parseReadParams(entries: Iterable<[string, string]>, limits: ReadLimits): ReadQuery {
  const q: ReadQuery = { select: [{ kind: 'star' }], where: [], order: [], limit: DEFAULT_LIMIT, offset: 0 }
  const invalid: FieldError[] = []
  let limit: string | undefined
  let offset: string | undefined
  for (const [key, value] of entries) {
    switch (key) {
      case 'limit':
        limit = value // the last one wins, as for a FastAPI scalar parameter
        break
      case 'offset':
        offset = value
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
        if (value !== '') q.where.push(parseLogicParam(key, value))
        break
      default:
        // PostgREST ignores parameters with an empty value
        if (value !== '') q.where.push(parseFilterParam(key, value))
    }
  }
  if (limit !== undefined) {
    const n = parseNonNegativeInt('limit', limit, invalid)
    if (n !== undefined) q.limit = Math.min(n, limits.maxLimit)
  }
  if (offset !== undefined) {
    const n = parseNonNegativeInt('offset', offset, invalid)
    if (n !== undefined) q.offset = n
  }
  if (invalid.length) throw validationError(invalid)
  q.limit = Math.min(q.limit, limits.maxLimit)
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

function parseNonNegativeInt(name: string, raw: string, out: FieldError[]): number | undefined {
  const loc = ['query', name]
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
    out.push({ type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input: raw })
    return undefined
  }
  const n = Number(raw)
  if (!Number.isSafeInteger(n)) {
    out.push({ type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input: raw })
    return undefined
  }
  if (n < 0) {
    out.push({ type: 'greater_than_equal', loc, msg: 'Input should be greater than or equal to 0', input: raw, ctx: { ge: 0 } })
    return undefined
  }
  return n
}

/** A pydantic-shaped 422; the API error middleware renders `details` as the `detail` list. */
export function validationError(errors: FieldError[]): AppError {
  return new AppError('validation', errors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; '), { details: errors })
}
