// The query of a part read (GET /content/v1/{org}/{doc}?view=...), checked: anything malformed is
// 400 naming the parameter. A `cursor` comes back alone and stands for the whole query.
import { AppError } from '../infra/errors.js'
import { decodeCursor, type Cursor } from './parts-cursor.js'
import { MAX_QUERY_CHARS, type FindQuery } from './parts-find.js'
import { MAX_BLOCK_IDS, type Selection } from './parts-select.js'

const VIEWS = ['outline', 'section', 'range', 'find'] as const
type View = (typeof VIEWS)[number]

export interface PartQuery {
  view: View
  root: string | null
  /** the base token to read at (now when null) */
  base: string | null
  /** what to read (section, range) or where to look (outline, find: `all` when not narrowed) */
  selection: Selection
  offset: number
  limit: number | null
  find: FindQuery | null
}

export const DEFAULT_FIND_LIMIT = 20
const MAX_FIND_LIMIT = 200
const MAX_CONTEXT = 10
const PARAMS = new Set([
  'view',
  'format',
  'root',
  'base',
  'heading',
  'blocks',
  'lines',
  'offset',
  'limit',
  'query',
  'regex',
  'ignore_case',
  'context',
  'cursor',
  'yauth',
])

/** Whether a GET of the content route is a part read (it names a view or continues one). */
export const isPartRead = (q: URLSearchParams) => q.has('view') || q.has('cursor')

const bad = (param: string, why: string) => new AppError('bad_request', `${param}: ${why}`)

function int(q: URLSearchParams, name: string, min: number, max: number): number | null {
  const raw = q.get(name)
  if (raw === null) return null
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw bad(name, `must be a whole number from ${min} to ${max}`)
  return Number(raw)
}

function bool(q: URLSearchParams, name: string): boolean {
  const raw = q.get(name)
  if (raw === null) return false
  if (raw !== 'true' && raw !== 'false') throw bad(name, 'must be true or false')
  return raw === 'true'
}

function selectionOf(q: URLSearchParams, view: View): Selection {
  const given = (['heading', 'blocks', 'lines'] as const).filter((p) => q.has(p))
  if (given.length > 1) throw bad(given[1]!, `name the part one way: ${given.join(' or ')}, not both`)
  const by = given[0]
  if (view === 'section' && by !== 'heading' && by !== 'blocks')
    throw bad('heading', 'view=section takes heading=TEXT|BLOCK_ID or blocks=ID[,ID...]|ID..ID')
  if (view === 'range' && by !== 'lines' && by !== 'blocks')
    throw bad('lines', 'view=range takes lines=FROM-TO (1-based, inclusive; FROM- to the end) or blocks=ID..ID')
  if (by === 'heading') {
    const heading = q.get('heading')!
    if (heading.trim() === '' || heading.length > 500)
      throw bad('heading', "must be a heading's text or block id (1-500 characters)")
    return { by, heading }
  }
  if (by === 'blocks') {
    const raw = q.get('blocks')!
    const range = raw.split('..')
    if (range.length === 2) return { by, ids: range.map((s) => s.trim()), range: true }
    if (range.length > 2) throw bad('blocks', 'a range is FIRST..LAST')
    const ids = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    if (!ids.length || ids.length > MAX_BLOCK_IDS)
      throw bad('blocks', `1 to ${MAX_BLOCK_IDS} block ids, comma-separated, or FIRST..LAST`)
    return { by, ids, range: false }
  }
  if (by === 'lines') {
    const m = /^(\d{1,9})(-(\d{1,9})?)?$/.exec(q.get('lines')!)
    const from = Number(m?.[1] ?? 0)
    const to = !m?.[2] ? from : m[3] === undefined ? null : Number(m[3])
    if (!m || from < 1 || (to !== null && to < from))
      throw bad('lines', 'FROM-TO, FROM- or LINE: 1-based line numbers of the Markdown view, FROM <= TO')
    return { by, from, to }
  }
  return { by: 'all' }
}

function findOf(q: URLSearchParams): FindQuery {
  const query = q.get('query')
  if (query === null || query === '')
    throw bad('query', 'view=find needs the text (or, with regex=true, the RE2 pattern) to find')
  if (query.length > MAX_QUERY_CHARS) throw bad('query', `at most ${MAX_QUERY_CHARS} characters`)
  return {
    query,
    regex: bool(q, 'regex'),
    ignoreCase: bool(q, 'ignore_case'),
    context: int(q, 'context', 0, MAX_CONTEXT) ?? 2,
  }
}

/** The query of a part read, or the cursor it continues. */
export function parsePartQuery(q: URLSearchParams): { query: PartQuery } | { cursor: Cursor } {
  for (const name of q.keys()) if (!PARAMS.has(name)) throw bad(name, 'not a parameter of the content route')
  const cursor = q.get('cursor')
  if (cursor !== null) {
    const other = [...q.keys()].find((k) => k !== 'cursor' && k !== 'yauth')
    if (other) throw bad('cursor', `send the cursor alone (it holds the rest of the read; ${other} is in it already)`)
    return { cursor: decodeCursor(cursor) }
  }
  const view = q.get('view')
  if (!(VIEWS as readonly string[]).includes(view ?? '')) throw bad('view', `must be one of ${VIEWS.join(', ')}`)
  const v = view as View
  const format = q.get('format')
  if (format !== null && format !== 'markdown')
    throw bad('format', 'a part read answers Markdown (read other formats whole, without view=)')
  const root = q.get('root')
  if (root !== null && (root === '' || root.length > 200))
    throw bad('root', 'must be the name of a root type (1-200 characters)')
  const base = q.get('base')
  if (base !== null && (base === '' || base.length > 2000))
    throw bad('base', 'must be the base a read of this document answered')
  if (v !== 'find')
    for (const p of ['query', 'regex', 'ignore_case', 'context']) if (q.has(p)) throw bad(p, 'only view=find takes it')
  return {
    query: {
      view: v,
      root,
      base,
      selection: selectionOf(q, v),
      offset: int(q, 'offset', 0, 1e9) ?? 0,
      limit: int(q, 'limit', 1, v === 'find' ? MAX_FIND_LIMIT : 1e9),
      find: v === 'find' ? findOf(q) : null,
    },
  }
}
