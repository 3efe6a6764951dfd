// A top-level block's id: the Yjs item identity of its element (`client:clock`), written
// `b-<client>-<clock>` in base 36. The id is part of the document, so every node of a cluster and
// every restart reads the same one, and it holds while anyone edits inside the block or around it.
// A block replaced (a paragraph turned into a heading, a block deleted and typed again) is a new
// element with a new id; when a block is split the part the editor keeps keeps the id and the
// other part is new; when two are merged the surviving element keeps its id (y-prosemirror keeps
// the first in both cases: test/content/block-ids.test.ts).
import type * as Y from 'yjs'

const BLOCK_ID = /^b-([0-9a-z]{1,11})-([0-9a-z]{1,11})$/

export function blockIdOf(id: Y.ID): string {
  return `b-${id.client.toString(36)}-${id.clock.toString(36)}`
}

/** Whether `s` is written as a block id (it may still name no block of the document). */
export const isBlockId = (s: string) => BLOCK_ID.test(s)
