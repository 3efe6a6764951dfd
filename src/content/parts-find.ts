// Find in one document's Markdown view: text or a regular expression, matched line by line, each
// match with its block id, line, column and a few lines of context. Regular expressions run on
// RE2JS (a port of RE2: linear time in the text, no backtracking, repeat counts capped), so no
// pattern can take the server hostage the way a backtracking engine's `(a+)+$` can. It runs in the
// warm content worker beside the view (1 MB takes RE2 up to ~0.4 s), never on the rooms' loop.
import { RE2JS } from 're2js'
import { AppError } from '../infra/errors.js'
import type { FindMatch } from '@tandem/api/content'
import { blockAt, sliceText, type Lined } from './parts-lines.js'
import type { Span } from './parts-select.js'

export const MAX_QUERY_CHARS = 500
const MAX_MATCH_CHARS = 200
const MAX_CONTEXT_LINE_CHARS = 400

export interface FindQuery {
  query: string
  regex: boolean
  ignoreCase: boolean
  /** lines of context before and after a match */
  context: number
}

type Finder = (line: string) => Generator<[number, number]>

function finderOf(q: FindQuery): Finder {
  if (q.query.includes('\n'))
    throw new AppError('bad_request', 'query: a match lies within one line: leave out line breaks')
  if (!q.regex && !q.ignoreCase) {
    return function* (line) {
      for (let i = line.indexOf(q.query); i >= 0; i = line.indexOf(q.query, i + Math.max(1, q.query.length)))
        yield [i, i + q.query.length]
    }
  }
  let pattern: RE2JS
  try {
    pattern = RE2JS.compile(q.regex ? q.query : RE2JS.quote(q.query), q.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (err) {
    throw new AppError('bad_request', `query: not a regular expression RE2 accepts (${(err as Error).message})`)
  }
  return function* (line) {
    const m = pattern.matcher(line)
    let from = 0
    while (from <= line.length && m.find(from)) {
      yield [m.start(), m.end()]
      from = m.end() > m.start() ? m.end() : m.end() + 1
    }
  }
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s)

/**
 * Matches in the lines of `scope` (every line when null), from the `skip`-th on, until `limit`
 * matches or `budget` characters of answer; `next` is the index of the first match not answered.
 */
export function find(
  m: Lined,
  q: FindQuery,
  scope: readonly Span[] | null,
  skip: number,
  limit: number,
  budget: number,
): { matches: FindMatch[]; next: number | null } {
  const finder = finderOf(q)
  const spans = scope ?? (m.lines ? [[1, m.lines] as Span] : [])
  const matches: FindMatch[] = []
  let index = 0
  let used = 2
  for (const [a, z] of spans) {
    for (let line = a; line <= z; line++) {
      const text = sliceText(m, m.starts[line - 1]!, m.starts[line]!).replace(/\n$/, '')
      for (const [s, e] of finder(text)) {
        if (index++ < skip) continue
        if (matches.length === limit) return { matches, next: index - 1 }
        const first = Math.max(1, line - q.context)
        const last = Math.min(m.lines, line + q.context)
        const context = sliceText(m, m.starts[first - 1]!, m.starts[last]!)
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => clip(l, MAX_CONTEXT_LINE_CHARS))
          .join('\n')
        const match: FindMatch = {
          id: blockAt(m, line)?.id ?? null,
          line,
          column: s + 1,
          match: clip(text.slice(s, e), MAX_MATCH_CHARS),
          context,
          context_line: first,
        }
        const size = JSON.stringify(match).length + 1
        if (matches.length && used + size > budget) return { matches, next: index - 1 }
        used += size
        matches.push(match)
      }
    }
  }
  return { matches, next: null }
}
