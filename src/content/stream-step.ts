// One step of a Markdown stream (streams.ts) as a targeted edit's run: the blocks the stream wrote
// so far, with the block it writes beside, go from what the stream showed last to what it may show
// now. The change is worked out between the two as the view would print them, then carried to the
// blocks as they read now like any targeted edit's (edit-carry.ts): a person who typed into them
// meanwhile keeps every keystroke, and the blocks around are never read.
import type { StreamWhere } from '@tandem/api/content'
import { AppError } from '../infra/errors.js'
import { EditRefused, locate, type Run } from './edit-locate.js'
import { markdownToPm } from './markdown-in.js'
import { printWithSpans } from './markdown-spans.js'
import { sliceText, charsOf, type Lined } from './parts-lines.js'
import type { Vocabulary } from './pm-json.js'
import { addressed } from './parts-select.js'

export interface StreamStep {
  /** the block the stream writes beside: after it, or before it; null in an empty document */
  anchor: string | null
  side: 'after' | 'before'
  /** the blocks the stream's text is in now (the last step's answer), the anchor left out */
  own: string[]
  /** the anchor's Markdown when the stream began: kept, if the stream's first block joined it (a list after a list) */
  lead0: string | null
  /** what the stream showed last, and what it shows now */
  prev: string
  render: string
}

const SEP = '\n\n'

/** Markdown as the view prints it, without the final newline (the run's text has none). */
const printed = (md: string, vocabulary: Vocabulary) =>
  md.trim() === '' ? '' : printWithSpans(markdownToPm(md, vocabulary).content ?? []).markdown.replace(/\n+$/, '')

/** A block's Markdown in the view, without its final newline. */
function blockText(view: Lined, i: number): string {
  const b = view.blocks[i]!
  const from = view.starts[b.line - 1]!
  return sliceText(view, from, from + charsOf(view, b.line, b.end))
}

/** The step as a run, and the anchor's Markdown it wrote beside; null when it changes nothing. */
export function streamRun(view: Lined, s: StreamStep, vocabulary: Vocabulary): { run: Run; lead: string } | null {
  const index = (id: string) => view.blocks.findIndex((b) => b.id === id)
  const anchorAt = s.anchor === null ? -1 : index(s.anchor)
  if (s.anchor !== null && anchorAt < 0)
    throw new AppError('conflict', `the block this stream writes beside (${s.anchor}) was deleted`)
  const own = s.own.map(index).filter((i) => i >= 0)
  const at = anchorAt >= 0 ? [anchorAt, ...own] : own
  const a = at.length ? Math.min(...at) : -1
  const z = at.length ? Math.max(...at) : -1
  // the anchor's Markdown now, unless the stream's first block joined it: then as it was
  const joined = own.length === 0 && s.prev !== ''
  const anchorText = anchorAt < 0 ? '' : blockText(view, anchorAt)
  const lead = joined && s.lead0 !== null ? s.lead0 : anchorText
  const whole = (text: string) =>
    lead === '' ? text : text === '' ? lead : s.side === 'after' ? lead + SEP + text : text + SEP + lead
  const before = printed(whole(s.prev), vocabulary)
  const after = printed(whole(s.render), vocabulary)
  if (before === after) return null
  let p = 0
  while (p < before.length && p < after.length && before[p] === after[p]) p++
  let q = 0
  while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q])
    q++
  const rep = { from: p, to: before.length - q, text: after.slice(p, after.length - q) }
  if (a < 0) {
    if (view.blocks.length) throw new AppError('conflict', 'the document is not empty any more: start the stream again')
    return { run: { first: null, last: null, text: before, reps: [rep], line: 1, drops: [], blocks: [] }, lead }
  }
  const run: Run = {
    first: view.blocks[a]!.id,
    last: view.blocks[z]!.id,
    text: before,
    reps: [rep],
    line: view.blocks[a]!.line,
    drops: [],
    // none by block: the change is carried across the run's text as it reads now
    blocks: [],
  }
  return { run, lead }
}

/**
 * The block a stream writes beside and on which side (null: none is left); for a stream in place of
 * blocks, those blocks and their Markdown, which its first step replaces.
 */
export interface StreamAnchor {
  anchor: string | null
  side: 'after' | 'before'
  replaced?: { own: string[]; text: string }
}

/** Where a stream starts in the view: the anchor beside it, or the blocks it replaces. */
export function anchorOf(view: Lined, where: StreamWhere): StreamAnchor {
  if ('replace' in where) return replacing(view, where.replace)
  if ('at' in where) {
    const b = where.at === 'end' ? view.blocks[view.blocks.length - 1] : view.blocks[0]
    return { anchor: b?.id ?? null, side: where.at === 'end' ? 'after' : 'before' }
  }
  if ('after' in where) return { anchor: view.blocks[addressed(view, where.after, 'after')]!.id, side: 'after' }
  return { anchor: view.blocks[addressed(view, where.before, 'before')]!.id, side: 'before' }
}

/** The whole blocks `old` matches (once), and the block beside them the stream keeps its place by. */
function replacing(view: Lined, old: string): StreamAnchor {
  let runs: Run[]
  try {
    runs = locate(view, [{ kind: 'replace', old, new: '', all: false }])
  } catch (err) {
    if (err instanceof EditRefused)
      throw new AppError('conflict', err.json.error.replace('edits[0].old_text', 'replace'))
    throw err
  }
  const run = runs[0]!
  const rep = run.reps[0]!
  if (rep.from !== 0 || run.text.slice(rep.to).trim() !== '' || run.first === null)
    throw new AppError(
      'validation',
      'replace must match whole blocks (a paragraph, a heading, a section, as the view prints them): a stream writes blocks of its own',
    )
  const a = view.blocks.findIndex((b) => b.id === run.first)
  const z = view.blocks.findIndex((b) => b.id === run.last)
  const own = view.blocks.slice(a, z + 1).map((b) => b.id)
  const replaced = { own, text: run.text }
  if (a > 0) return { anchor: view.blocks[a - 1]!.id, side: 'after', replaced }
  if (z + 1 < view.blocks.length) return { anchor: view.blocks[z + 1]!.id, side: 'before', replaced }
  return { anchor: null, side: 'after', replaced }
}
