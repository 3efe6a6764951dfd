// Targeted edits applied to the document as it is now. Each run of blocks the edits touched at the
// base (edit-locate.ts) is found again by its blocks' ids, its Markdown printed as it reads now,
// and each replacement carried over from the base's text to today's by a character diff: a person
// who typed elsewhere in the same paragraph keeps every keystroke, and an edit whose own text
// changed since the base is refused (409), never applied to something else. The run's new Markdown
// is parsed and diffed against the run's blocks alone (fragment-update.ts, windowed), so an edit
// costs the size of what it touches, and blocks outside the runs keep their items untouched.
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { ContentChange } from '@tandem/api/content'
import { blockIdOf } from './block-id.js'
import { between, carriedRun, runPrinted, runText, type Printed } from './edit-carry.js'
import type { EditRefused, Rep, Run } from './edit-locate.js'
import { countY, nextLive, updateChildren } from './fragment-update.js'
import { namesOf } from './formats.js'
import { MARKDOWN } from './lens.js'
import { markdownToPm } from './markdown-in.js'
import { sliceOf, sliceText, withLines, type Lined } from './parts-lines.js'
import { notXml, partsOf, type PartsModel } from './parts-model.js'
import { vocabularyOf, type PmNode, type Vocabulary } from './pm-json.js'
import { liveItems } from '../ydoc/roots.js'
import { contentRoot, DEFAULT_ROOT, namedRoot } from './roots.js'
import type { Counts } from './text-update.js'

export interface TargetedInput {
  root: string | null
  runs: Run[]
  /** lines of context around each change in the answer */
  context: number
}

type Change = ContentChange

export type TargetedResult =
  | (Counts & { root: string; update: Uint8Array | null; model: PartsModel; changes: Change[] })
  | { refused: Pick<EditRefused, 'status' | 'json'> }

/** The nearest live child with content before `item`: new children of a run go after it, never before. */
function prevLive(item: Y.Item): Y.Item | null {
  for (let l = item.left; l !== null; l = l.left) if (!l.deleted && l.content instanceof Y.ContentType) return l
  return null
}

function applied(text: string, reps: readonly Rep[]): string {
  let out = text
  for (const r of [...reps].sort((a, b) => b.from - a.from || b.to - a.to))
    out = out.slice(0, r.from) + r.text + out.slice(r.to)
  return out
}

const SENTINEL = 'tandem-end-of-run-7f3a'

/**
 * The run's new blocks; refused when its Markdown leaves a block open that would take in what follows (an unclosed
 * fence).
 */
function parsedRun(text: string, vocabulary: Vocabulary): PmNode[] {
  const nodes = markdownToPm(text, vocabulary).content ?? []
  if (!text) return nodes
  const probe = markdownToPm(`${text}\n\n${SENTINEL}`, vocabulary).content ?? []
  const tail = probe[probe.length - 1]
  const closed =
    probe.length === nodes.length + 1 &&
    tail?.type === 'paragraph' &&
    tail.content?.length === 1 &&
    tail.content[0]!.text === SENTINEL
  if (!closed)
    throw new AppError(
      'validation',
      'the edit leaves a block open (an unclosed code fence, say) that would take in the blocks after it: close it in new_text or insert',
    )
  return nodes
}

const changedSince = (id: string | null, why: string, text?: string): TargetedResult => ({
  refused: {
    status: 409,
    json: {
      error: `${why}: read that part again (view=section) and edit from the new base`,
      code: 'changed_since_base',
      ...(id ? { block: id } : {}),
      ...(text !== undefined ? { now: text.slice(0, 2000) } : {}),
    },
  },
})

interface Plan {
  first: Y.Item | null
  last: Y.Item | null
  nodes: PmNode[]
  /** blocks a delete names: deleted before the run is diffed, so none is paired with an inserted block */
  drops: Y.Item[]
}

/** The index of `item` among its parent's children, as Y.XmlFragment.delete counts them. */
function indexOf(fragment: Y.XmlFragment, item: Y.Item): number {
  let n = 0
  for (const i of liveItems(fragment)) {
    if (i === item) return n
    if (i.content instanceof Y.ContentType) n++
  }
  throw new Error('the block is not a child of its fragment')
}

/** Applies the runs' edits to `state` (the document now) in one update. */
export function computeTargeted(state: Uint8Array, input: TargetedInput): TargetedResult {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return targetedOn(doc, input)
  } finally {
    doc.destroy()
  }
}

/** The edits applied to `doc`, which they change; `viewOf` gives the view after (a warm document keeps its own). */
export function targetedOn(
  doc: Y.Doc,
  input: TargetedInput,
  viewOf: (name: string, fragment: Y.XmlFragment) => PartsModel = partsOf,
): TargetedResult {
  const collect = (u: Uint8Array) => {
    update = update ? Y.mergeUpdates([update, u]) : u
  }
  let update: Uint8Array | null = null
  try {
    while (doc.store.clients.has(doc.clientID)) doc.clientID = Math.floor(Math.random() * 0xffffffff)
    const found = input.root === null ? contentRoot(doc) : namedRoot(doc, input.root)
    const name = found?.name ?? DEFAULT_ROOT
    if (found && found.kind !== 'xml' && found.kind !== 'empty') throw notXml(name)
    const fragment = doc.getXmlFragment(name)
    const vocabulary = vocabularyOf(namesOf(fragment))
    const byId = new Map<string, Y.Item>()
    for (let item = fragment._start; item !== null; item = item.right)
      if (!item.deleted && item.content instanceof Y.ContentType) byId.set(blockIdOf(item.id), item)

    const plans: Plan[] = []
    for (const run of input.runs) {
      const first = run.first === null ? null : (byId.get(run.first) ?? null)
      const last = run.last === null ? null : (byId.get(run.last) ?? null)
      if (run.first !== null && !first) return changedSince(run.first, `block ${run.first} was deleted since your base`)
      if (run.last !== null && !last) return changedSince(run.last, `block ${run.last} was deleted since your base`)
      if (first && last && ![...between(first, last)].some((i) => i === last))
        return changedSince(run.first, `blocks ${run.first}..${run.last} were moved since your base`)
      // A deleted block that changed since the base (text typed into it, even at its ends) is the
      // person's work the agent has not seen: refused, never half-deleted.
      const drops: Y.Item[] = []
      for (const d of run.drops) {
        const item = byId.get(d.id)
        if (!item) return changedSince(d.id, `block ${d.id} was deleted since your base`)
        const text = runText(item, item)
        if (text !== d.text)
          return changedSince(d.id, `block ${d.id}, which an edit deletes, was changed since your base`, text)
        drops.push(item)
      }
      const now: Printed =
        first && last
          ? runPrinted(first, last)
          : { text: partsOf(name, fragment).markdown.replace(/\n$/, ''), ranges: new Map() }
      const reps = carriedRun(run, now)
      if (!reps)
        return changedSince(
          run.first,
          `the text an edit changes (near line ${run.line} of your base) was changed since your base by someone else`,
          now.text,
        )
      plans.push({ first, last, nodes: parsedRun(applied(now.text, reps), vocabulary), drops })
    }

    const counts: Counts = { inserted: 0, deleted: 0 }
    doc.on('update', collect)
    // The run's neighbours, to find it again afterwards (runs are never adjacent: edit-locate.ts).
    const seams = plans.map((p) => ({
      before: p.first ? prevLive(p.first) : null,
      after: p.last ? nextLive(p.last) : null,
    }))
    doc.transact(() => {
      for (const p of plans) {
        for (const item of p.drops) {
          counts.deleted += countY((item.content as Y.ContentType).type as Y.XmlElement)
          fragment.delete(indexOf(fragment, item), 1)
        }
        updateChildren(
          fragment,
          p.nodes,
          counts,
          MARKDOWN,
          undefined,
          p.first && p.last ? { first: p.first, last: p.last } : undefined,
        )
      }
    })
    const model = viewOf(name, fragment)
    const view = withLines(model)
    return {
      root: name,
      update,
      ...counts,
      model,
      changes: seams.map((s) => changeOf(view, fragment, s, input.context)),
    }
  } finally {
    doc.off('update', collect)
  }
}

/** What the context lines on each side of a change may take at most. */
const CONTEXT_MAX_CHARS = 400

/** The region between a run's old neighbours in the new view, with `context` lines around. */
function changeOf(
  view: Lined,
  fragment: Y.XmlFragment,
  seam: { before: Y.Item | null; after: Y.Item | null },
  context: number,
): Change {
  const index = new Map(view.blocks.map((b, i) => [b.id, i]))
  const printedAt = (item: Y.Item | null, step: 'left' | 'right'): number | null => {
    for (let i = item; i !== null; i = i[step])
      if (!i.deleted && index.has(blockIdOf(i.id))) return index.get(blockIdOf(i.id))!
    return null
  }
  // the run now: the children after `before` up to `after`
  const ids: string[] = []
  for (let i = seam.before ? seam.before.right : fragment._start; i !== null && i !== seam.after; i = i.right) {
    if (!i.deleted && index.has(blockIdOf(i.id))) ids.push(blockIdOf(i.id))
  }
  if (view.lines === 0) return { line: 0, end: 0, content: '', blocks: ids }
  let line: number
  let end: number
  if (ids.length) {
    line = view.blocks[index.get(ids[0]!)!]!.line
    end = view.blocks[index.get(ids[ids.length - 1]!)!]!.end
  } else {
    const b = printedAt(seam.before, 'left')
    const a = printedAt(seam.after, 'right')
    line = b === null ? 1 : view.blocks[b]!.end
    end = a === null ? view.lines : view.blocks[a]!.line
  }
  // Whole lines of context, each side at most CONTEXT_MAX_CHARS: a neighbour that is one long
  // paragraph would otherwise be most of the answer.
  const size = (a: number, z: number) => view.starts[z]! - view.starts[a - 1]!
  const [top, bottom] = [line, end]
  while (top - line < context && line > 1 && size(line - 1, top - 1) <= CONTEXT_MAX_CHARS) line--
  while (end - bottom < context && end < view.lines && size(bottom + 1, end + 1) <= CONTEXT_MAX_CHARS) end++
  end = Math.max(line, end)
  const [from, to] = sliceOf(view, line, end)
  return { line, end, content: sliceText(view, from, to), blocks: ids }
}
