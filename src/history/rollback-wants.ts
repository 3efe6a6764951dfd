// What a rollback wants kept: the document at a time, as a named version holds it, or as it is
// without a span of someone's changes (rollback.ts applies the difference). Each is a test on a run
// of the history document: present in the result or not.
import * as Y from 'yjs'
import { visibleAt, type Mark, type Run } from './runs.js'
import type { DocHistory } from './timeline.js'
import { whoMatches, type AttrFilter } from './who.js'

/** What a rollback reads: the history document (deleted content kept) and its attribution index. */
export type RollbackSource = Pick<DocHistory, 'doc' | 'index'>

export type Want = (r: Run) => boolean

/** The document as it was at `time`. */
export const wantAt =
  (time: number): Want =>
  (r) =>
    visibleAt(r, time)

/**
 * The document as a named version holds it: an item is wanted when the version's state vector
 * covers it and its delete set does not. Read off the version's own bytes, so it holds however
 * far history retention has folded the log since.
 */
export function wantVersion(state: Uint8Array): Want {
  const sv = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(state))
  const { ds } = Y.decodeUpdate(state)
  return (r) => {
    const { client } = r.item.id
    const clock = r.item.id.clock + r.offset
    return clock < (sv.get(client) ?? 0) && !Y.isDeleted(ds, Y.createID(client, clock))
  }
}

/**
 * The history document with a version's own content put back under it: retention garbage-collects
 * what was deleted before its base, and a version older than the base may hold some of that. The
 * version's items go in first (with their content), the history after (its deletions then mark
 * them deleted, gc off, so they keep their content for the rollback to restore).
 */
export function withVersionContent(h: DocHistory, state: Uint8Array): RollbackSource & { destroy(): void } {
  const doc = new Y.Doc({ gc: false })
  Y.applyUpdate(doc, state)
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(h.doc))
  return { doc, index: h.index, destroy: () => doc.destroy() }
}

/**
 * The document as it is, minus the changes made in [from, to] by `by` (everyone when null)
 * carrying all of `attr` (any when null): an agent's work undone, everyone's other edits kept.
 */
export function wantWithout(from: number, to: number, by: ReadonlySet<string> | null, attr: AttrFilter = null): Want {
  const undone = (m: Mark) =>
    m.at >= from && m.at <= to && ((by === null && attr === null) || (m.user !== null && whoMatches(m.user, by, attr)))
  return (r) => !undone(r.ins) && !(r.del && !undone(r.del))
}
