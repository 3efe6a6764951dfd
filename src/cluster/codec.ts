// Bus messages sent to a node's inbox, as bytes (pure, no I/O). Each names its document; an update
// message carries the seqs its updates were committed under, so a receiver can tell a hole from a
// duplicate.
//   update:    [0] varString(node) varString(doc) varUint(fromSeq) varUint(toSeq) varUint8Array(update)
//   awareness: [1] varString(node) varString(doc) varUint8Array(awareness update)
//   awareness query: [2] varString(node) varString(doc)   (a node that just followed asks the others to re-announce)
//   head:      [3] varString(node) varString(doc) varUint(seq)   (the sender committed up to seq, not all of it sent)
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'

export interface UpdateMessage {
  type: 'update'
  node: string
  docId: string
  fromSeq: number
  toSeq: number
  /** the committed updates of seqs fromSeq..toSeq, merged into one Yjs update */
  update: Uint8Array
}

export interface AwarenessMessage {
  type: 'awareness'
  node: string
  docId: string
  /** a y-protocols awareness update */
  update: Uint8Array
}

interface AwarenessQueryMessage {
  type: 'awareness-query'
  node: string
  docId: string
}

/** A node that did not publish some cycles (nobody else followed) tells a new follower how far it committed. */
interface HeadMessage {
  type: 'head'
  node: string
  docId: string
  seq: number
}

export type BusMessage = UpdateMessage | AwarenessMessage | AwarenessQueryMessage | HeadMessage

const UPDATE = 0
const AWARENESS = 1
const AWARENESS_QUERY = 2
const HEAD = 3
const TYPES = { update: UPDATE, awareness: AWARENESS, 'awareness-query': AWARENESS_QUERY, head: HEAD } as const

export function encodeBusMessage(m: BusMessage): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeUint8(e, TYPES[m.type])
  encoding.writeVarString(e, m.node)
  encoding.writeVarString(e, m.docId)
  if (m.type === 'update') {
    encoding.writeVarUint(e, m.fromSeq)
    encoding.writeVarUint(e, m.toSeq)
  }
  if (m.type === 'head') encoding.writeVarUint(e, m.seq)
  if (m.type === 'update' || m.type === 'awareness') encoding.writeVarUint8Array(e, m.update)
  return encoding.toUint8Array(e)
}

/** Throws on anything that is not a well-formed message (a foreign publisher on our channel). */
export function decodeBusMessage(bytes: Uint8Array): BusMessage {
  const d = decoding.createDecoder(bytes)
  const type = decoding.readUint8(d)
  const node = decoding.readVarString(d)
  const docId = decoding.readVarString(d)
  let m: BusMessage
  if (type === UPDATE) {
    const fromSeq = decoding.readVarUint(d)
    const toSeq = decoding.readVarUint(d)
    if (fromSeq < 1 || toSeq < fromSeq) throw new Error(`bus message: bad seq range ${fromSeq}..${toSeq}`)
    m = { type: 'update', node, docId, fromSeq, toSeq, update: decoding.readVarUint8Array(d) }
  } else if (type === AWARENESS) {
    m = { type: 'awareness', node, docId, update: decoding.readVarUint8Array(d) }
  } else if (type === AWARENESS_QUERY) {
    m = { type: 'awareness-query', node, docId }
  } else if (type === HEAD) {
    m = { type: 'head', node, docId, seq: decoding.readVarUint(d) }
  } else {
    throw new Error(`bus message: unknown type ${type}`)
  }
  if (decoding.hasContent(d)) throw new Error('bus message: trailing bytes')
  return m
}
