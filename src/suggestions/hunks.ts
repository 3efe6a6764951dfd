// A suggestion's hunks: the document's top-level blocks at the suggestion's base and with its change
// applied, aligned by content like a content write aligns them (fast-diff over one symbol per
// block); each changed stretch is a hunk with the blocks it replaces and the ones it brings. Hunk
// ids hash the hunk's place and content, so they stay the same for as long as the suggestion
// lives, whatever happens to the document meanwhile. Accepting some hunks is a content write of
// the base with just those hunks replaced (fragment-update.ts), merged with everything since.
import { createHash } from 'node:crypto'
import diff from 'fast-diff'
import * as Y from 'yjs'
import { fragmentToPm } from '../content/fragment-read.js'
import { Symbols } from '../content/fragment-update.js'
import type { PmNode } from '../content/pm-json.js'
import { contentRoot, namedRoot } from '../content/roots.js'
import { stableJson } from '../content/stable-json.js'

interface Hunk {
  id: string
  /** the blocks at the base the hunk replaces (none: a pure insertion) */
  before: PmNode[]
  /** the blocks the hunk brings (none: a pure deletion) */
  after: PmNode[]
}

export interface Hunks {
  /** the XML root they are read from */
  root: string
  hunks: Hunk[]
  /** the base's blocks, and where each hunk starts among them with how many it replaces */
  baseBlocks: PmNode[]
  spans: { at: number; replaces: number }[]
}

/** The XML root of a change, or null when the change is not to an XML fragment (accepted whole only). */
function xmlRoot(doc: Y.Doc, name: string | null): string | null {
  if (name !== null) return namedRoot(doc, name).kind === 'xml' ? name : null
  const found = contentRoot(doc)
  return found?.kind === 'xml' ? found.name : null
}

function blocksOf(
  state: Uint8Array,
  update: Uint8Array | null,
  root: string | null,
): { root: string | null; blocks: PmNode[] } {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    if (update) Y.applyUpdate(doc, update)
    const name = xmlRoot(doc, root)
    return { root: name, blocks: name ? (fragmentToPm(doc.share.get(name)!).content ?? []) : [] }
  } finally {
    doc.destroy()
  }
}

/** The hunks of `update` made against `baseState`; null when it changes no XML root. */
export function hunksOf(baseState: Uint8Array, update: Uint8Array, root: string | null): Hunks | null {
  const after = blocksOf(baseState, update, root)
  if (!after.root) return null
  const before = blocksOf(baseState, null, after.root)
  const symbols = new Symbols()
  const sym = (n: PmNode) => symbols.of(stableJson(n))
  const from = before.blocks.map(sym).join('')
  const to = after.blocks.map(sym).join('')
  const hunks: Hunk[] = []
  const spans: Hunks['spans'] = []
  let b = 0
  let a = 0
  let open: { at: number; before: PmNode[]; after: PmNode[] } | null = null
  const close = () => {
    if (!open) return
    const id =
      'h' +
      createHash('sha256')
        .update(stableJson({ n: hunks.length, at: open.at, before: open.before, after: open.after }))
        .digest('base64url')
        .slice(0, 12)
    hunks.push({ id, before: open.before, after: open.after })
    spans.push({ at: open.at, replaces: open.before.length })
    open = null
  }
  for (const [op, s] of diff(from, to)) {
    if (op === diff.EQUAL) {
      close()
      b += s.length
      a += s.length
      continue
    }
    open ??= { at: b, before: [], after: [] }
    if (op === diff.DELETE) {
      open.before.push(...before.blocks.slice(b, b + s.length))
      b += s.length
    } else {
      open.after.push(...after.blocks.slice(a, a + s.length))
      a += s.length
    }
  }
  close()
  return { root: after.root, hunks, baseBlocks: before.blocks, spans }
}

/** The document the base becomes with exactly the hunks `take` admits replaced. */
export function withHunks(h: Hunks, take: (id: string) => boolean): PmNode {
  const out: PmNode[] = []
  let next = 0
  h.hunks.forEach((hunk, i) => {
    const { at, replaces } = h.spans[i]!
    out.push(...h.baseBlocks.slice(next, at))
    out.push(...(take(hunk.id) ? hunk.after : hunk.before))
    next = at + replaces
  })
  out.push(...h.baseBlocks.slice(next))
  return { type: 'doc', content: out }
}

/** One entry of a marked preview: content, marked when the suggestion inserts or deletes it now. */
export interface MarkedOp {
  insert: PmNode | string
  attribution?: { insert: string[] } | { delete: string[] }
  /** the hunk the marked content belongs to, where it is recognised */
  hunk?: string
}

/**
 * The document as it would read if the suggestion were accepted now, marked like a changeset:
 * `current` and `accepted` aligned by top-level block (XML roots) or by character (text roots);
 * what only `accepted` has is marked `insert`, what only `current` has stays in place marked
 * `delete`, both by the suggestion's author.
 */
export function markedPreview(
  current: Uint8Array,
  accepted: Uint8Array,
  root: string | null,
  by: string,
  h: Hunks | null,
): MarkedOp[] {
  const now = blocksOf(current, null, root)
  if (now.root) {
    const then = blocksOf(accepted, null, now.root)
    const hunkOf = new Map<string, string>()
    for (const hunk of h?.hunks ?? [])
      for (const b of [...hunk.before, ...hunk.after]) hunkOf.set(stableJson(b), hunk.id)
    const symbols = new Symbols()
    const sym = (n: PmNode) => symbols.of(stableJson(n))
    const ops: MarkedOp[] = []
    let c = 0
    let a = 0
    for (const [op, s] of diff(now.blocks.map(sym).join(''), then.blocks.map(sym).join(''))) {
      for (let i = 0; i < s.length; i++) {
        if (op === diff.EQUAL) {
          ops.push({ insert: now.blocks[c++]! })
          a++
        } else {
          const block = op === diff.DELETE ? now.blocks[c++]! : then.blocks[a++]!
          const hunk = hunkOf.get(stableJson(block))
          ops.push({
            insert: block,
            attribution: op === diff.DELETE ? { delete: [by] } : { insert: [by] },
            ...(hunk ? { hunk } : {}),
          })
        }
      }
    }
    return ops
  }
  // a text root: by character
  const text = (state: Uint8Array) => {
    const doc = new Y.Doc()
    try {
      Y.applyUpdate(doc, state)
      const name = root ?? contentRoot(doc)?.name
      return name && doc.share.has(name) ? doc.getText(name).toString() : ''
    } finally {
      doc.destroy()
    }
  }
  return diff(text(current), text(accepted)).map(([op, s]): MarkedOp =>
    op === diff.EQUAL
      ? { insert: s }
      : { insert: s, attribution: op === diff.DELETE ? { delete: [by] } : { insert: [by] } },
  )
}
