// A structural check of a Yjs (v1) update: walks every struct and the delete set with lib0's own
// readers, exactly as `Y.decodeUpdate` would, but builds no Item, ID or content objects. It must
// accept precisely what decoding accepts: Yjs integrates structs before it reads the delete set,
// so an update that fails late must be refused before `Y.applyUpdate` sees it.
import * as decoding from 'lib0/decoding'

const BITS5 = 31
const BIT6 = 32
const BIT7 = 64
const BIT8 = 128

/** Content refs 1..9 carry content; 0 (GC) and exactly 10 (Skip) are structs of their own. */
const TYPE_REF_XML_ELEMENT = 3
const TYPE_REF_XML_HOOK = 5
const TYPE_REF_MAX = 6

/** Throws where `Y.decodeUpdate` would throw; returns normally for a well-formed update. */
export function scanUpdate(update: Uint8Array): void {
  const d = decoding.createDecoder(update)
  const clients = decoding.readVarUint(d)
  for (let i = 0; i < clients; i++) {
    const structs = decoding.readVarUint(d)
    decoding.readVarUint(d) // client
    decoding.readVarUint(d) // first clock
    for (let j = 0; j < structs; j++) {
      const info = decoding.readUint8(d)
      const ref = BITS5 & info
      // As decoding reads them: exactly 10 is a Skip, any other info with ref 0 a GC (ref 10
      // with flags is an item with no valid content, refused below).
      if (info === 10 || ref === 0) {
        decoding.readVarUint(d) // Skip or GC length
        continue
      }
      if ((info & BIT8) === BIT8) readId(d) // origin
      if ((info & BIT7) === BIT7) readId(d) // right origin
      if ((info & (BIT7 | BIT8)) === 0) {
        // parent: a root type's name, or the id of the item holding the parent type
        if (decoding.readVarUint(d) === 1) decoding.readVarString(d)
        else readId(d)
        if ((info & BIT6) === BIT6) decoding.readVarString(d) // parentSub (map key)
      }
      scanContent(d, ref)
    }
  }
  // delete set: per client, (clock, length) ranges
  const dsClients = decoding.readVarUint(d)
  for (let i = 0; i < dsClients; i++) {
    decoding.readVarUint(d) // client
    const ranges = decoding.readVarUint(d)
    for (let j = 0; j < ranges; j++) {
      decoding.readVarUint(d)
      decoding.readVarUint(d)
    }
  }
}

function readId(d: decoding.Decoder): void {
  decoding.readVarUint(d)
  decoding.readVarUint(d)
}

function scanContent(d: decoding.Decoder, ref: number): void {
  switch (ref) {
    case 1: // deleted
      decoding.readVarUint(d)
      return
    case 2: {
      // JSON: each entry a string, 'undefined' or JSON text
      const n = decoding.readVarUint(d)
      for (let i = 0; i < n; i++) {
        const s = decoding.readVarString(d)
        if (s !== 'undefined') JSON.parse(s)
      }
      return
    }
    case 3: // binary
      decoding.readVarUint8Array(d)
      return
    case 4: // string (lib0's decoder is fatal on invalid UTF-8, like decoding)
      decoding.readVarString(d)
      return
    case 5: // embed
      JSON.parse(decoding.readVarString(d))
      return
    case 6: // format: key, JSON value
      decoding.readVarString(d)
      JSON.parse(decoding.readVarString(d))
      return
    case 7: {
      // type
      const typeRef = decoding.readVarUint(d)
      if (typeRef > TYPE_REF_MAX) throw new Error('unknown type ref')
      if (typeRef === TYPE_REF_XML_ELEMENT || typeRef === TYPE_REF_XML_HOOK) decoding.readVarString(d)
      return
    }
    case 8: {
      // any
      const n = decoding.readVarUint(d)
      for (let i = 0; i < n; i++) decoding.readAny(d)
      return
    }
    case 9: {
      // subdocument: guid, options (Yjs reads options.shouldLoad, so they must be an object)
      decoding.readVarString(d)
      const opts = decoding.readAny(d) as unknown
      if (opts === null || opts === undefined) throw new Error('subdocument without options')
      return
    }
    default:
      throw new Error('unknown content ref')
  }
}
