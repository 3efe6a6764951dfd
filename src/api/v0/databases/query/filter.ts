// One filter expression `[not.]<op>.<value>`: the value of a column parameter (`id=gt.5`) or the
// tail of a filter inside a logic tree (`or=(id.gt.5,name.eq."a,b")`).
//
// At the top level the value is everything after the operator, verbatim (quotes included, as in
// PostgREST). Inside a logic tree it ends at `,` or `)` unless double-quoted or a `{...}` array.
// Whitespace as PostgREST treats it: spaces and tabs around the parentheses of an in-list and
// after its `(` are skipped; any other space belongs to the value it touches (`in.( 1, 2 )` is
// "1" and " 2 "). A `"` starts a quoted value only when the quotes close and `,`, `)` or the end
// follows at once; otherwise it is an ordinary character (`in.(")` is the value `"`).
import type { CompareOp, Condition, IsValue } from '@tandem/api/query'
import type { Scanner } from './scanner.js'

const COMPARE: ReadonlySet<string> = new Set<CompareOp>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'])
const IS_VALUES: ReadonlySet<string> = new Set<IsValue>(['null', 'not_null', 'true', 'false', 'unknown'])
const OPERATORS = 'eq, neq, gt, gte, lt, lte, like, ilike, in, is'

export type Context = 'root' | 'logic'

export function parseOpExpr(s: Scanner, column: string, ctx: Context): Condition {
  const param = s.param
  const negate = s.eat('not.')
  const opAt = s.pos
  const op = s.until('.')
  if (!s.eat('.')) {
    s.pos = opAt
    s.fail(`expected <operator>.<value> with an operator among ${OPERATORS}`)
  }
  if (op === 'in') return { kind: 'in', param, negate, column, values: parseList(s, ctx) }
  if (op === 'is') {
    const at = s.pos
    // no space before the word (PostgREST refuses `is. null`); spaces after it end the value
    const word = (ctx === 'root' ? s.rest() : s.until(',)')).trimEnd().toLowerCase()
    if (!IS_VALUES.has(word)) {
      s.pos = at
      s.fail('is expects null, not_null, true, false or unknown')
    }
    return { kind: 'is', param, negate, column, value: word as IsValue }
  }
  if (COMPARE.has(op)) {
    let value = ctx === 'root' ? s.rest() : logicValue(s)
    // PostgREST's URL-safe wildcard: `*` stands for `%` in like patterns.
    if (op === 'like' || op === 'ilike') value = value.replaceAll('*', '%')
    return { kind: 'compare', param, negate, column, op: op as CompareOp, value }
  }
  s.pos = opAt
  s.fail(`unknown operator ${JSON.stringify(op)} (supported: ${OPERATORS})`)
}

/**
 * A double-quoted value (backslash escapes any character) at the cursor, when its quotes close
 * and a `,`, `)` or the end follows; otherwise undefined, with the cursor left where it was.
 */
function closedQuoted(s: Scanner): string | undefined {
  if (s.peek() !== '"') return undefined
  const at = s.pos
  try {
    const q = s.quoted()
    if (s.done || s.peek() === ',' || s.peek() === ')') return q
  } catch {
    // the quotes never close
  }
  s.pos = at
  return undefined
}

/** `(a,"b,c",d)`: elements are verbatim up to `,`/`)`, or double-quoted with backslash escapes. */
function parseList(s: Scanner, ctx: Context): string[] {
  s.skipSpaces()
  s.expect('(', "'(' to open the list of in")
  const values: string[] = []
  s.skipSpaces()
  if (s.eat(')')) return finishList(s, ctx, values)
  for (;;) {
    values.push(closedQuoted(s) ?? s.until(',)'))
    if (s.eat(',')) continue
    if (s.eat(')')) return finishList(s, ctx, values)
    s.fail("expected ')' to close the list of in")
  }
}

function finishList(s: Scanner, ctx: Context, values: string[]): string[] {
  if (ctx === 'root') {
    s.skipSpaces()
    if (!s.done) s.fail('unexpected text after the list of in')
  }
  return values
}

function logicValue(s: Scanner): string {
  const quoted = closedQuoted(s)
  if (quoted !== undefined) return quoted
  if (s.peek() === '{') {
    const at = s.pos
    s.pos++
    s.until('{}')
    if (s.eat('}')) return s.text.slice(at, s.pos)
    s.pos = at
  }
  return s.until(',)')
}
