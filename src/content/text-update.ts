// The smallest change that turns a Y.Text (or a Y.XmlText run of a ProseMirror block) into the
// given text: a character diff (fast-diff, Myers with common-affix trimming) deletes and inserts
// only what differs, so characters both sides share keep their items, and a person's concurrent
// insertion beside them stays where it was typed. Formatting is compared on the shared ranges.
import diff from 'fast-diff'
import * as Y from 'yjs'
import { echoed } from './concurrent.js'
import { FULL, type Lens } from './lens.js'
import { stableJson } from './stable-json.js'

export type Attrs = Record<string, unknown>

/** One formatted run of the target text. */
export interface TextRun {
  text: string
  attrs: Attrs
}

export interface Counts {
  inserted: number
  deleted: number
}

const EMBED = '\uFFFC' // an embed in a Y.Text counts one position

interface Span {
  start: number
  end: number
  attrs: Attrs
}

function spansOf(runs: readonly { text: string; attrs: Attrs }[]): Span[] {
  const out: Span[] = []
  let at = 0
  for (const r of runs) {
    out.push({ start: at, end: at + r.text.length, attrs: r.attrs })
    at += r.text.length
  }
  return out
}

/** The span holding position `pos` (spans are sorted and contiguous); `hint` speeds the forward walk. */
function spanAt(spans: Span[], pos: number, hint: { i: number }): Span | undefined {
  while (hint.i < spans.length && spans[hint.i]!.end <= pos) hint.i++
  return spans[hint.i]
}

function pickKeys(v: unknown, keys: readonly string[]): Attrs {
  const out: Attrs = {}
  if (v && typeof v === 'object')
    for (const k of keys) if ((v as Attrs)[k] !== undefined && (v as Attrs)[k] !== null) out[k] = (v as Attrs)[k]
  return out
}

/**
 * What `format` must set to go from `from` to `to`: changed marks, and null for marks to drop.
 * Under a partial lens only managed marks change, and only in their managed attributes.
 */
function formatChange(from: Attrs, to: Attrs, lens: Lens): Attrs | null {
  const change: Attrs = {}
  let any = false
  for (const [k, v] of Object.entries(to)) {
    const keys = lens.markKeys(k)
    if (keys === undefined) continue
    if (keys === null) {
      if (stableJson(from[k]) === stableJson(v)) continue
      change[k] = v
    } else {
      if (
        from[k] !== undefined &&
        from[k] !== null &&
        stableJson(pickKeys(from[k], keys)) === stableJson(pickKeys(v, keys))
      )
        continue
      const kept = from[k] && typeof from[k] === 'object' ? { ...(from[k] as Attrs) } : {}
      for (const key of keys) delete kept[key]
      change[k] = { ...kept, ...pickKeys(v, keys) }
    }
    any = true
  }
  for (const k of Object.keys(from)) {
    if (!(k in to) && from[k] !== null && k !== 'ychange' && lens.markKeys(k) !== undefined) {
      change[k] = null
      any = true
    }
  }
  return any ? change : null
}

/**
 * Edits `text` into `target`. `plain`: the target carries no formatting (a `text` write), so
 * existing formatting is kept and insertions take their neighbour's. `others`: what others
 * inserted since the base, per gap of `text` (concurrent.ts); an insertion they already made at
 * the same place is left out.
 */
export function updateText(
  text: Y.Text,
  target: readonly TextRun[],
  counts: Counts,
  plain = false,
  lens: Lens = FULL,
  others?: Map<number, string>,
): void {
  const current = (text.toDelta() as { insert: unknown; attributes?: Attrs }[]).map((op) => ({
    text: typeof op.insert === 'string' ? op.insert : EMBED,
    attrs: op.attributes ?? {},
  }))
  const from = current.map((r) => r.text).join('')
  const to = target.map((r) => r.text).join('')
  if (from === to && plain) return
  const curSpans = spansOf(current)
  const tgtSpans = spansOf(target)
  const curHint = { i: 0 }
  const tgtHint = { i: 0 }
  let live = 0 // position in the text as edited so far
  let cpos = 0 // position in the text as it was
  let tpos = 0 // position in the target
  for (const [op, s] of diff(from, to)) {
    const n = s.length
    if (op === diff.DELETE) {
      text.delete(live, n)
      counts.deleted += n
      cpos += n
    } else if (op === diff.INSERT) {
      if (others?.size && echoed(others, from, cpos, s)) {
        tpos += n
        continue
      }
      let done = 0
      while (done < n) {
        const span = spanAt(tgtSpans, tpos + done, tgtHint)!
        const len = Math.min(n - done, span.end - (tpos + done))
        if (plain) text.insert(live, s.slice(done, done + len))
        else text.insert(live, s.slice(done, done + len), { ...span.attrs })
        live += len
        done += len
      }
      counts.inserted += n
      tpos += n
    } else {
      if (!plain) {
        let done = 0
        while (done < n) {
          const c = spanAt(curSpans, cpos + done, curHint)!
          const t = spanAt(tgtSpans, tpos + done, tgtHint)!
          const len = Math.min(n - done, c.end - (cpos + done), t.end - (tpos + done))
          let change = formatChange(c.attrs, t.attrs, lens)
          // White space a lens cannot see formatted (Markdown prints a run's edge spaces outside
          // it) keeps marks the target lacks; marks the target gives it (inside a run) are set.
          if (change && !lens.formatsWhitespace && !/\S/.test(to.slice(tpos + done, tpos + done + len)))
            change = additionsOf(change)
          if (change) text.format(live + done, len, change)
          done += len
        }
      }
      live += n
      cpos += n
      tpos += n
    }
  }
}

/** The marks a format change sets, without those it drops; null when it only drops. */
function additionsOf(change: Attrs): Attrs | null {
  const out: Attrs = {}
  let any = false
  for (const [k, v] of Object.entries(change)) {
    if (v === null) continue
    out[k] = v
    any = true
  }
  return any ? out : null
}
