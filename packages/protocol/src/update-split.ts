// Cutting a Yjs (v1) update in two at a clock per client, as a Y.Doc does when it integrates what
// it can and keeps the rest pending: `below` holds every struct that starts below its client's
// cut and the whole delete set, `above` the structs from the cut on. The structs' bytes are copied
// as they are (a struct's encoding depends only on its client and clock, which the new run headers
// give), so nothing is decoded into objects and no content is re-encoded.
import * as encoding from 'lib0/encoding'
import { scanUpdate, SPAN_STRIDE } from './update-scan.js'

export interface SplitUpdate {
  /** the structs below the cuts and the delete set (null when neither has anything) */
  below: Uint8Array | null
  /** the structs from the cuts on, with no deletions (null when there are none) */
  above: Uint8Array | null
}

const spans: number[] = []

/** Splits `update` at `cut(client)`; throws as scanUpdate does on a malformed update. */
export function splitUpdate(update: Uint8Array, cut: (client: number) => number): SplitUpdate {
  const deleteSetAt = scanUpdate(update, undefined, spans)
  const low: Run[] = []
  const high: Run[] = []
  for (let i = 0; i < spans.length;) {
    let end = i
    while (end < spans.length && spans[end] === spans[i]) end += SPAN_STRIDE
    const at = cut(spans[i + 1]!)
    let k = i
    while (k < end && spans[k + 2]! < at) k += SPAN_STRIDE
    // a Skip is a gap's placeholder: it never ends the lower run nor starts the upper one
    let lowEnd = k
    while (lowEnd > i && spans[lowEnd - SPAN_STRIDE + 6] === 1) lowEnd -= SPAN_STRIDE
    let highStart = k
    while (highStart < end && spans[highStart + 6] === 1) highStart += SPAN_STRIDE
    if (lowEnd > i) low.push(runOf(i, lowEnd))
    if (highStart < end) high.push(runOf(highStart, end))
    i = end
  }
  const deleteSet = update.subarray(deleteSetAt)
  const hasDeletes = deleteSet.length > 1 || deleteSet[0] !== 0
  return {
    below: low.length > 0 || hasDeletes ? encode(update, low, deleteSet) : null,
    above: high.length > 0 ? encode(update, high, EMPTY_DELETE_SET) : null,
  }
}

interface Run {
  client: number
  clock: number
  structs: number
  from: number
  to: number
}

/** The run of spans [first, end) (one client's consecutive structs). */
function runOf(first: number, end: number): Run {
  return {
    client: spans[first + 1]!,
    clock: spans[first + 2]!,
    structs: (end - first) / SPAN_STRIDE,
    from: spans[first + 4]!,
    to: spans[end - SPAN_STRIDE + 5]!,
  }
}

const EMPTY_DELETE_SET = Uint8Array.of(0)

function encode(update: Uint8Array, runs: Run[], deleteSet: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, runs.length)
  for (const r of runs) {
    encoding.writeVarUint(e, r.structs)
    encoding.writeVarUint(e, r.client)
    encoding.writeVarUint(e, r.clock)
    encoding.writeUint8Array(e, update.subarray(r.from, r.to))
  }
  encoding.writeUint8Array(e, deleteSet)
  return encoding.toUint8Array(e)
}
