// Log entries packed into one buffer as they are read from the store: a history job's log goes to
// a worker thread as one transferable buffer (no clone of thousands of small objects on the event
// loop), and its length is what the job's document is built from.
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type { StoredUpdate } from '../storage/doc-store.js'

export class LogPacker {
  private readonly e = encoding.createEncoder()
  /** update bytes packed so far */
  updateBytes = 0
  lastSeq = 0

  add(u: StoredUpdate): void {
    encoding.writeVarUint(this.e, u.seq)
    encoding.writeVarUint(this.e, u.at)
    encoding.writeVarString(this.e, u.user)
    encoding.writeVarString(this.e, u.attrs ? JSON.stringify(u.attrs) : '')
    encoding.writeVarUint8Array(this.e, u.update)
    this.updateBytes += u.update.length
    this.lastSeq = u.seq
  }

  finish(): Uint8Array {
    return encoding.toUint8Array(this.e)
  }
}

/** The entries of a pack, in the order they were added (updates are views into the pack). */
export function unpackLog(pack: Uint8Array): StoredUpdate[] {
  const d = decoding.createDecoder(pack)
  const out: StoredUpdate[] = []
  while (decoding.hasContent(d)) {
    const seq = decoding.readVarUint(d)
    const at = decoding.readVarUint(d)
    const user = decoding.readVarString(d)
    const attrs = decoding.readVarString(d)
    const update = decoding.readVarUint8Array(d)
    out.push({ seq, at, user, update, ...(attrs ? { attrs: JSON.parse(attrs) } : {}) })
  }
  return out
}
