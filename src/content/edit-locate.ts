// Where targeted edits land in the Markdown view of the base: each edit becomes a span of that
// text and its replacement, and the spans are gathered into runs of whole top-level blocks (an
// edit touching two blocks makes one run of both). A run is what the server re-parses and diffs;
// every block outside the runs is never read again. `old_text` must occur exactly once (or every
// occurrence with `replace_all`): no match is 409 with the closest text and its line, several are
// 409 with their count and lines.
import { AppError } from '../infra/errors.js'
import type { EditRefusal } from '@tandem/api/content'
import type { EditOp } from './edit-ops.js'
import { charsOf, lineAt, occurrencesIn, sliceText, type Lined } from './parts-lines.js'
import { addressed, sectionEnd } from './parts-select.js'

/** A replacement inside a run's text: characters `from`..`to` become `text`. */
export interface Rep {
  from: number
  to: number
  text: string
}

/** A run of the base's top-level blocks an edit touches, with its Markdown and the replacements in it. */
export interface Run {
  /** ids of its first and last block; null for an empty document */
  first: string | null
  last: string | null
  /** the run's Markdown in the base's view (from its first block's first character to its last block's last) */
  text: string
  reps: Rep[]
  /** where the run starts in the base's view (line) */
  line: number
  /** the blocks a delete removes, with their Markdown at the base: they must still read so */
  drops: Drop[]
  /** each of the run's blocks and where it lies in `text`: an edit inside one is carried by that block's id */
  blocks: RunBlock[]
}

interface RunBlock {
  id: string
  from: number
  to: number
}

/** A whole block a delete names: deleted as such, never rewritten into a block inserted beside it. */
interface Drop {
  id: string
  text: string
}

/** A refusal with a body of its own (409: the text is not there once); the route adds the base. */
export class EditRefused extends Error {
  constructor(
    readonly status: number,
    readonly json: Omit<EditRefusal, 'base'>,
  ) {
    super(json.error)
  }
}

interface Span extends Rep {
  op: number
  drops?: Drop[]
}

const MAX_LINES_LISTED = 20
const LINE_TEXT_MAX = 200

const blockFrom = (m: Lined, i: number) => m.starts[m.blocks[i]!.line - 1]!
const blockTo = (m: Lined, i: number) => blockFrom(m, i) + charsOf(m, m.blocks[i]!.line, m.blocks[i]!.end)

const lineText = (m: Lined, line: number) => {
  const t = sliceText(m, m.starts[line - 1]!, m.starts[line]!).replace(/\n$/, '')
  return t.length > LINE_TEXT_MAX ? `${t.slice(0, LINE_TEXT_MAX)}…` : t
}

/** The longest k such that `has(k)` (has is monotone: true up to some k, false after). */
function longest(max: number, has: (k: number) => boolean): number {
  let lo = 0
  let hi = max
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (has(mid)) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * Where `old` comes closest: the longest beginning of it the view holds, or the longest end,
 * whichever is longer (an agent's old_text is most often right up to a typo or a changed word).
 */
function closest(m: Lined, old: string): { line: number; text: string; matched_chars: number } | null {
  const head = longest(old.length, (k) => m.markdown.includes(old.slice(0, k)))
  const tail = longest(old.length, (k) => m.markdown.includes(old.slice(old.length - k)))
  const k = Math.max(head, tail)
  if (k < Math.min(3, old.length)) return null
  const at = head >= tail ? m.markdown.indexOf(old.slice(0, head)) : m.markdown.indexOf(old.slice(old.length - tail))
  // the line where old_text would begin: for a matching end, count back the lines before it
  let line = lineAt(m, at)
  if (head < tail) line = Math.max(1, line - (old.slice(0, old.length - tail).split('\n').length - 1))
  return { line, text: lineText(m, line), matched_chars: k }
}

function spansOf(m: Lined, op: EditOp, i: number): Span[] {
  const param = `edits[${i}]`
  const n = m.blocks.length
  switch (op.kind) {
    case 'replace': {
      const found = occurrencesIn(m, op.old, op.all ? Infinity : 2)
      if (found.length === 0) {
        const near = closest(m, op.old)
        const where = near
          ? `; the closest text is on line ${near.line}: ${JSON.stringify(near.text)} (its first or last ${near.matched_chars} characters match)`
          : ''
        throw new EditRefused(409, {
          error: `${param}.old_text does not occur in the document at this base${where}: read that part again and copy old_text exactly`,
          code: 'no_match',
          edit: i,
          ...(near ? { closest: near } : {}),
        })
      }
      if (found.length > 1 && !op.all) {
        const all = occurrencesIn(m, op.old, 10_000)
        const lines = all.slice(0, MAX_LINES_LISTED).map((at) => lineAt(m, at))
        throw new EditRefused(409, {
          error: `${param}.old_text occurs ${all.length === 10_000 ? 'at least 10000' : all.length} times (lines ${lines.join(', ')}${all.length > lines.length ? ', ...' : ''}): add surrounding text until it is unique, or set replace_all`,
          code: 'several_matches',
          edit: i,
          count: all.length,
          lines,
        })
      }
      return found.map((at) => ({ from: at, to: at + op.old.length, text: op.new, op: i }))
    }
    case 'insert': {
      const w = op.where
      if ('at' in w) {
        if (n === 0) return [{ from: 0, to: 0, text: op.markdown, op: i }]
        return w.at === 'start'
          ? [{ from: 0, to: 0, text: `${op.markdown}\n\n`, op: i }]
          : [{ from: blockTo(m, n - 1), to: blockTo(m, n - 1), text: `\n\n${op.markdown}`, op: i }]
      }
      if ('before' in w) {
        const at = blockFrom(m, addressed(m, w.before, `${param}.before`))
        return [{ from: at, to: at, text: `${op.markdown}\n\n`, op: i }]
      }
      const at = blockTo(m, addressed(m, w.after, `${param}.after`))
      return [{ from: at, to: at, text: `\n\n${op.markdown}`, op: i }]
    }
    case 'delete': {
      const b = addressed(m, op.block, `${param}.delete`)
      if (op.section && m.blocks[b]!.kind !== 'heading')
        throw new AppError(
          'bad_request',
          `${param}: section: true deletes a heading with its section; ${m.blocks[b]!.id} is a ${m.blocks[b]!.kind} (leave section out to delete the block)`,
        )
      const last = op.section ? sectionEnd(m, b) : b
      const drops = Array.from({ length: last - b + 1 }, (_, k) => ({
        id: m.blocks[b + k]!.id,
        text: sliceText(m, blockFrom(m, b + k), blockTo(m, b + k)),
      }))
      return [{ from: blockFrom(m, b), to: blockTo(m, last), text: '', op: i, drops }]
    }
  }
}

/** The first block of a span: the last one starting at or before it. */
function firstBlock(m: Lined, from: number): number {
  let lo = 0
  let hi = m.blocks.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (blockFrom(m, mid) <= from) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The last block of a span: the first one ending at or after it (the last block for the view's final newline). */
function lastBlock(m: Lined, to: number): number {
  let lo = 0
  let hi = m.blocks.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (blockTo(m, mid) >= to) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** The runs the edits touch, in document order; throws EditRefused or a 400/404 AppError. */
export function locate(m: Lined, ops: readonly EditOp[]): Run[] {
  const spans = ops.flatMap((op, i) => spansOf(m, op, i)).sort((a, b) => a.from - b.from || a.to - b.to || a.op - b.op)
  for (let i = 1; i < spans.length; i++) {
    const [a, b] = [spans[i - 1]!, spans[i]!]
    if (b.from < a.to)
      throw new AppError(
        'bad_request',
        `edits[${a.op}] and edits[${b.op}] change overlapping text (line ${lineAt(m, b.from)}): make them one edit`,
      )
  }
  if (m.blocks.length === 0)
    return [{ first: null, last: null, text: m.markdown, reps: spans, line: 1, drops: [], blocks: [] }]
  const runs: (Omit<Run, 'blocks'> & { a: number; z: number; from: number })[] = []
  for (const s of spans) {
    const a = firstBlock(m, s.from)
    const z = lastBlock(m, s.to)
    const end = blockTo(m, z)
    // Past the last block there is only the view's final newline: it means nothing in Markdown.
    if (s.to > end) {
      const excess = sliceText(m, end, s.to)
      s.text = s.text.endsWith(excess) ? s.text.slice(0, s.text.length - excess.length) : s.text
      s.to = end
      s.from = Math.min(s.from, end)
    }
    const last = runs[runs.length - 1]
    // touching or adjacent runs are one: a run's neighbours are then never another run's blocks
    if (last && a <= last.z + 1) {
      if (z > last.z) {
        last.z = z
        last.last = m.blocks[z]!.id
        last.text = sliceText(m, last.from, end)
      }
      last.reps.push({ from: s.from - last.from, to: s.to - last.from, text: s.text })
      last.drops.push(...(s.drops ?? []))
      continue
    }
    const from = blockFrom(m, a)
    runs.push({
      a,
      z,
      from,
      first: m.blocks[a]!.id,
      last: m.blocks[z]!.id,
      text: sliceText(m, from, end),
      reps: [{ from: s.from - from, to: s.to - from, text: s.text }],
      line: m.blocks[a]!.line,
      drops: [...(s.drops ?? [])],
    })
  }
  return runs.map(({ a, z, from, first, last, text, reps, line, drops }) => {
    const blocks = Array.from({ length: z - a + 1 }, (_, k) => ({
      id: m.blocks[a + k]!.id,
      from: blockFrom(m, a + k) - from,
      to: blockTo(m, a + k) - from,
    }))
    return { first, last, text, reps, line, drops, blocks }
  })
}
