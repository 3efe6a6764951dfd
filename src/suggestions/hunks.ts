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

function blocksOf(state: Uint8Array, update: Uint8Array | null, root: string | null): { root: string | null; blocks: PmNode[] } {
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
  const symbols = new Map<string, string>()
  const sym = (n: PmNode) => {
    const key = stableJson(n)
    let s = symbols.get(key)
    if (s === undefined) {
      let code = 0x100 + symbols.size
      if (code >= 0xd800) code += 0x800
      s = String.fromCharCode(code)
      symbols.set(key, s)
    }
    return s
  }
  const from = before.blocks.map(sym).join('')
  const to = after.blocks.map(sym).join('')
  const hunks: Hunk[] = []
  const spans: Hunks['spans'] = []
  let b = 0
  let a = 0
  let open: { at: number; before: PmNode[]; after: PmNode[] } | null = null
  const close = () => {
    if (!open) return
    const id = 'h' + createHash('sha256').update(stableJson({ n: hunks.length, at: open.at, before: open.before, after: open.after })).digest('base64url').slice(0, 12)
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
