// A structural check of a Yjs (v1) update: walks every struct and the delete set with lib0's own
// readers, exactly as `Y.decodeUpdate` would, but builds no Item, ID or content objects. It must
// accept precisely what decoding accepts: Yjs integrates structs before it reads the delete set,
// so an update that fails late must be refused before `Y.applyUpdate` sees it. On request it also
// reports the update's shape (clock ranges per client, each struct's dependencies, the deleted
// ranges, whether integrating it can fail), which lets a room judge an update against a document
// it holds encoded, without a Y.Doc (collab/room/doc-state.ts).
import * as decoding from 'lib0/decoding'

const BITS5 = 31
const BIT6 = 32
const BIT7 = 64
const BIT8 = 128

/** Content refs 1..9 carry content; 0 (GC) and exactly 10 (Skip) are structs of their own. */
const TYPE_REF_XML_ELEMENT = 3
const TYPE_REF_XML_HOOK = 5
const TYPE_REF_MAX = 6

/** Numbers per struct in UpdateShape.structs. */
export const STRUCT_STRIDE = 7

/**
 * What a scan learned about an update's structs, filled in place (one instance is reused: the
 * scan allocates nothing per update).
 */
export class UpdateShape {
  /** per client with structs: client, first clock, end clock (exclusive), flattened */
  readonly ranges: number[] = []
  /**
   * Every struct but Skips, in update order, STRUCT_STRIDE numbers each: client, clock, length,
   * then the ids it needs of other clients before it can be integrated (origin, then right origin
   * or the parent's item), each as client and clock, -1 when absent.
   */
  readonly structs: number[] = []
  /** deleted ranges: client, clock, length, flattened */
  readonly deletes: number[] = []
  /**
   * Applying the update cannot throw, whatever the document holds: no struct or deleted range of
   * length 0, deleted ranges sorted and apart, and every origin or parent id of the item's own
   * client lies before the item (an earlier clock of one client is always present before it).
   * Ids of other clients either exist (clocks below a client's state are contiguous) or make the
   * item wait as pending; a parent id naming something other than a type makes Yjs collect the
   * item (a GC struct), never throw. Checked against Yjs by a property test (update-scan.test.ts).
   */
  integrable = false

  reset(): void {
    this.ranges.length = 0
    this.structs.length = 0
    this.deletes.length = 0
    this.integrable = false
  }
}

/**
 * Numbers per struct in a scan's `spans` (update-split.ts): its run (the update's nth client
 * header), client, clock, length, first byte, end byte, and 1 for a Skip (else 0).
 */
export const SPAN_STRIDE = 7

/**
 * Throws where `Y.decodeUpdate` would throw; for a well-formed update returns the offset where its
 * delete set starts. `spans`, when given, gets every struct's SPAN_STRIDE numbers (Skips and GCs
 * included), for cutting the update apart without decoding it again.
 */
export function scanUpdate(update: Uint8Array, shape?: UpdateShape, spans?: number[]): number {
  shape?.reset()
  if (spans) spans.length = 0
  const structsOut = shape?.structs
  let integrable = true
  const d = decoding.createDecoder(update)
  const clients = decoding.readVarUint(d)
  for (let i = 0; i < clients; i++) {
    const structs = decoding.readVarUint(d)
    const client = decoding.readVarUint(d)
    const first = decoding.readVarUint(d)
    let clock = first
    for (let j = 0; j < structs; j++) {
      const start = d.pos
      const info = decoding.readUint8(d)
      const ref = BITS5 & info
      // As decoding reads them: exactly 10 is a Skip, any other info with ref 0 a GC (ref 10
      // with flags is an item with no valid content, refused below).
      if (info === 10 || ref === 0) {
        const len = decoding.readVarUint(d) // Skip or GC length
        if (len === 0) integrable = false
        if (info !== 10) structsOut?.push(client, clock, len, -1, -1, -1, -1)
        spans?.push(i, client, clock, len, start, d.pos, info === 10 ? 1 : 0)
        clock += len
        continue
      }
      let oc = -1
      let ok = -1
      let rc = -1
      let rk = -1
      if ((info & BIT8) === BIT8) {
        oc = decoding.readVarUint(d)
        ok = decoding.readVarUint(d)
        if (oc === client && ok >= clock) integrable = false
      }
      if ((info & BIT7) === BIT7) {
        rc = decoding.readVarUint(d)
        rk = decoding.readVarUint(d)
        if (rc === client && rk >= clock) integrable = false
      }
      if ((info & (BIT7 | BIT8)) === 0) {
        // parent: a root type's name, or the id of the item holding the parent type
        if (decoding.readVarUint(d) === 1) decoding.readVarString(d)
        else {
          rc = decoding.readVarUint(d)
          rk = decoding.readVarUint(d)
          if (rc === client && rk >= clock) integrable = false
        }
        if ((info & BIT6) === BIT6) decoding.readVarString(d) // parentSub (map key)
      }
      const len = scanContent(d, ref)
      if (len === 0) integrable = false
      if (structsOut) {
        // only ids of other clients are dependencies: the client's own earlier clocks come first
        if (oc === client) oc = ok = -1
        if (rc === client) rc = rk = -1
        structsOut.push(client, clock, len, oc, ok, rc, rk)
      }
      spans?.push(i, client, clock, len, start, d.pos, 0)
      clock += len
    }
    if (shape && structs > 0) shape.ranges.push(client, first, clock)
  }
  // delete set: per client, (clock, length) ranges
  const deleteSetAt = d.pos
  const dsClients = decoding.readVarUint(d)
  for (let i = 0; i < dsClients; i++) {
    const client = decoding.readVarUint(d)
    const ranges = decoding.readVarUint(d)
    let end = 0
    for (let j = 0; j < ranges; j++) {
      const clock = decoding.readVarUint(d)
      const len = decoding.readVarUint(d)
      // Yjs re-encodes the ranges it keeps pending as deltas: empty or unsorted ones break that.
      if (len === 0 || clock < end) integrable = false
      end = clock + len
      shape?.deletes.push(client, clock, len)
    }
  }
  if (shape) shape.integrable = integrable
  return deleteSetAt
}

/** Reads an item's content; returns its length in clock units, as Yjs counts it. */
function scanContent(d: decoding.Decoder, ref: number): number {
  switch (ref) {
    case 1: // deleted
      return decoding.readVarUint(d)
    case 2: {
      // JSON: each entry a string, 'undefined' or JSON text
      const n = decoding.readVarUint(d)
      for (let i = 0; i < n; i++) {
        const s = decoding.readVarString(d)
        if (s !== 'undefined') JSON.parse(s)
      }
      return n
    }
    case 3: // binary
      decoding.readVarUint8Array(d)
      return 1
    case 4: // string (lib0's decoder is fatal on invalid UTF-8, like decoding)
      return decoding.readVarString(d).length // UTF-16 units, as Yjs counts
    case 5: // embed
      JSON.parse(decoding.readVarString(d))
      return 1
    case 6: // format: key, JSON value
      decoding.readVarString(d)
      JSON.parse(decoding.readVarString(d))
      return 1
    case 7: {
      // type
      const typeRef = decoding.readVarUint(d)
      if (typeRef > TYPE_REF_MAX) throw new Error('unknown type ref')
      if (typeRef === TYPE_REF_XML_ELEMENT || typeRef === TYPE_REF_XML_HOOK) decoding.readVarString(d)
      return 1
    }
    case 8: {
      // any
      const n = decoding.readVarUint(d)
      for (let i = 0; i < n; i++) decoding.readAny(d)
      return n
    }
    case 9: {
      // subdocument: guid, options (Yjs reads options.shouldLoad, so they must be an object)
      decoding.readVarString(d)
      const opts = decoding.readAny(d) as unknown
      if (opts === null || opts === undefined) throw new Error('subdocument without options')
      return 1
    }
    default:
      throw new Error('unknown content ref')
  }
}
