// Reading a room's document as one update, for callers that may wait (REST, versions, the API).
// A document held in several large parts is merged or diffed beside the room (DocBuilds, a worker
// thread) instead of stalling every room's event loop; a small one is answered in the loop. Kept
// apart from the room because it is the one read with its own rules (pinning, replacing the parts
// it merged) and no socket path goes through it.
import { decodeStateVector, mergeUpdates } from 'yjs'
import { AppError } from '../../infra/errors.js'
import { IN_LOOP_MAX_BYTES } from '../../infra/worker-thread.js'
import type { DocBuilds } from './doc-builds.js'
import type { DocState } from './doc-state.js'

/** The document as one update (everything served, and what is held), or what a state vector lacks; in the loop. */
export function encodeState(state: DocState, stateVector?: Uint8Array): Uint8Array {
  if (!stateVector) return state.full()
  try {
    return state.diff(stateVector)
  } catch {
    throw new AppError('bad_request', 'invalid state vector')
  }
}

/**
 * encodeState that may go beside the loop. A whole-state merge replaces the parts it was made of,
 * so the next read is served as held. The answer is the state when the call was made: the parts
 * are taken before the first await (a caller may read headSeq right after calling). A compaction
 * folding the same parts meanwhile is harmless: whichever ends first replaces them, and the other
 * finds them gone (replacePrefix checks) and only uses its own result.
 */
export function readState(state: DocState, docBuilds: DocBuilds, stateVector?: Uint8Array): Promise<Uint8Array> {
  if (state.servedBytes <= IN_LOOP_MAX_BYTES || state.parts().length <= 1) {
    try {
      return Promise.resolve(encodeState(state, stateVector))
    } catch (err) {
      return Promise.reject(err)
    }
  }
  if (stateVector) {
    try {
      decodeStateVector(stateVector)
    } catch {
      return Promise.reject(new AppError('bad_request', 'invalid state vector'))
    }
    return docBuilds.fold(state.answerParts(), false, stateVector)
  }
  const parts = state.pinParts()
  const held = state.heldPart() // taken now too; merged after, apart from the served parts
  return docBuilds.fold(parts, false).then(
    (merged) => {
      state.replacePrefix(parts, merged)
      state.unpin()
      return held ? mergeUpdates([merged, held]) : merged
    },
    (err: unknown) => {
      state.unpin()
      throw err
    },
  )
}
