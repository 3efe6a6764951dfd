// A structural check of a Yjs (v1) update: walks every struct and the delete set with lib0's own
// readers, exactly as `Y.decodeUpdate` would, but builds no Item, ID or content objects. It must
// accept precisely what decoding accepts: Yjs integrates structs before it reads the delete set,
// so an update that fails late must be refused before `Y.applyUpdate` sees it. On request it also
// reports the update's shape (clock ranges per client, whether integrating it can fail), which
// lets a room tell a new update from a known one without applying it (room.ts, deferred apply).
import * as decoding from 'lib0/decoding'

const BITS5 = 31
const BIT6 = 32
const BIT7 = 64
const BIT8 = 128

/** Content refs 1..9 carry content; 0 (GC) and exactly 10 (Skip) are structs of their own. */
const TYPE_REF_XML_ELEMENT = 3
const TYPE_REF_XML_HOOK = 5
const TYPE_REF_MAX = 6

/**
 * What a scan learned about an update's structs, filled in place (one instance is reused: the
 * scan allocates nothing per update).
 */
export class UpdateShape {
  /** per client with structs: client, first clock, end clock (exclusive), flattened */
  readonly ranges: number[] = []
  /**
   * Applying the update cannot throw, whatever the document holds: no Skip, no struct or deleted
   * range of length 0, deleted ranges sorted and apart, no parent named by id (it must hold a
   * type, which only the document knows), and every origin of the item's own client lies before
   * the item (an earlier clock of one client is always present before it). Origins of other
   * clients either exist (clocks below a client's state are contiguous) or make the item wait as
   * pending. At least one struct. Checked against Yjs by a property test (update-scan.test.ts).
   */
  integrable = false

  reset(): void {
    this.ranges.length = 0
    this.integrable = false
  }
}

/** Throws where `Y.decodeUpdate` would throw; returns normally for a well-formed update. */
export function scanUpdate(update: Uint8Array, shape?: UpdateShape): void {
  shape?.reset()
  let integrable = true
  let structsSeen = 0
  const d = decoding.createDecoder(update)
  const clients = decoding.readVarUint(d)
  for (let i = 0; i < clients; i++) {
    const structs = decoding.readVarUint(d)
    const client = decoding.readVarUint(d)
    const first = decoding.readVarUint(d)
    let clock = first
    for (let j = 0; j < structs; j++) {
      const info = decoding.readUint8(d)
      const ref = BITS5 & info
      // As decoding reads them: exactly 10 is a Skip, any other info with ref 0 a GC (ref 10
      // with flags is an item with no valid content, refused below).
      if (info === 10 || ref === 0) {
        const len = decoding.readVarUint(d) // Skip or GC length
        if (info === 10 || len === 0) integrable = false
        clock += len
        continue
      }
      if ((info & BIT8) === BIT8 && readId(d, client) >= clock) integrable = false // origin
      if ((info & BIT7) === BIT7 && readId(d, client) >= clock) integrable = false // right origin
      if ((info & (BIT7 | BIT8)) === 0) {
        // parent: a root type's name, or the id of the item holding the parent type
        if (decoding.readVarUint(d) === 1) decoding.readVarString(d)
        else {
          readId(d, -1)
          integrable = false
        }
        if ((info & BIT6) === BIT6) decoding.readVarString(d) // parentSub (map key)
      }
      const len = scanContent(d, ref)
      if (len === 0) integrable = false
      clock += len
    }
    structsSeen += structs
    if (shape && structs > 0) shape.ranges.push(client, first, clock)
  }
  // delete set: per client, (clock, length) ranges
  const dsClients = decoding.readVarUint(d)
  for (let i = 0; i < dsClients; i++) {
    decoding.readVarUint(d) // client
    const ranges = decoding.readVarUint(d)
    let end = 0
    for (let j = 0; j < ranges; j++) {
      const clock = decoding.readVarUint(d)
      const len = decoding.readVarUint(d)
      // Yjs re-encodes the ranges it keeps pending as deltas: empty or unsorted ones break that.
      if (len === 0 || clock < end) integrable = false
      end = clock + len
    }
  }
  if (shape) shape.integrable = integrable && structsSeen > 0
}

/** Reads an id; its clock when it names `client`, -1 otherwise. */
function readId(d: decoding.Decoder, client: number): number {
  const idClient = decoding.readVarUint(d)
  const clock = decoding.readVarUint(d)
  return idClient === client ? clock : -1
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
