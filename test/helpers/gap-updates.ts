// Updates sent ahead of what they build on, for tests of held updates: a pair whose second needs
// the first, and whether a document keeps structs pending.
import * as Y from 'yjs'

/**
 * Two updates of one fresh client (`client`, or a random one): U1 types "first ", U2 "second" after it (so U2 needs
 * U1).
 */
export function gapPair(client?: number): { u1: Uint8Array; u2: Uint8Array } {
  const doc = new Y.Doc()
  if (client !== undefined) doc.clientID = client
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  doc.getText('t').insert(0, 'first ')
  doc.getText('t').insert(6, 'second')
  return { u1: updates[0]!, u2: updates[1]! }
}

/** Whether `doc` holds structs it could not integrate yet. */
export const hasPending = (doc: Y.Doc): boolean => doc.store.pendingStructs !== null

/** The second update of a fresh client `client` whose first never comes: `structs` structs, all held. */
export function orphanUpdate(client: number, structs: number): Uint8Array {
  const d = new Y.Doc()
  d.clientID = client
  d.getText('t').insert(0, 'lost ')
  const sv = Y.encodeStateVector(d)
  // each insert at the same place is an item of its own (its right origin is the one before)
  d.transact(() => {
    for (let i = 0; i < structs; i++) d.getText('t').insert(5, String.fromCharCode(97 + (i % 26)))
  })
  return Y.encodeStateAsUpdate(d, sv)
}
