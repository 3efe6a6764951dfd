// `or=(a.eq.1,and(b.gt.2,not.c.is.null),not.or(d.lt.0,e.like.x*))` -> a Condition tree.
import type { Condition } from '@tandem/api/query'
import { parseOpExpr } from './filter.js'
import { Scanner } from './scanner.js'

// PostgREST allows spaces and tabs between the operator and its parenthesis (`and (`), not inside `not.`.
const NESTED = /(not\.)?(and|or)[ \t]*\(/y

/**
 * `param` is the parameter name (`or`, `and`, `not.or`, `not.and`); `value` its `(...)` list, which
 * is level 1 of at most `maxDepth` (parsing and compiling recurse once per level).
 */
export function parseLogicParam(param: string, value: string, maxDepth: number): Condition {
  const negate = param.startsWith('not.')
  const op = param.slice(negate ? 4 : 0) as 'and' | 'or'
  const s = new Scanner(value, param)
  s.skipSpaces()
  s.expect('(', `'(' to open the ${op} list`)
  const children = parseChildren(s, 1, maxDepth)
  s.skipSpaces()
  if (!s.done) s.fail(`unexpected text after the ${op} list`)
  return { kind: 'logic', param, negate, op, children }
}

function parseChildren(s: Scanner, depth: number, maxDepth: number): Condition[] {
  const children: Condition[] = []
  for (;;) {
    children.push(parseNode(s, depth, maxDepth))
    s.skipSpaces()
    if (s.eat(',')) continue
    s.expect(')', "',' or ')'")
    return children
  }
}

function parseNode(s: Scanner, depth: number, maxDepth: number): Condition {
  s.skipSpaces()
  NESTED.lastIndex = s.pos
  const m = NESTED.exec(s.text)
  if (m) {
    if (depth >= maxDepth) s.fail(`logic trees nest at most ${maxDepth} levels`)
    s.pos += m[0].length
    return {
      kind: 'logic',
      param: s.param,
      negate: Boolean(m[1]),
      op: m[2] as 'and' | 'or',
      children: parseChildren(s, depth + 1, maxDepth),
    }
  }
  const column = s.name('.,()', 'a column name')
  s.expect('.', "'.' after the column name")
  return parseOpExpr(s, column, 'logic')
}
