// A bare y-protocols awareness update, checked whole before it is applied: a truncated one would
// otherwise change the first clients' states and then fail, half applied.
// Layout: varUint count, then per client varUint clientID, varUint clock, varString JSON state.
import * as decoding from 'lib0/decoding'
import { AppError } from '../infra/errors.js'

export function checkAwarenessUpdate(update: Uint8Array): void {
  const bad = () => new AppError('bad_request', 'awareness is not a valid awareness update')
  try {
    const d = decoding.createDecoder(update)
    const count = decoding.readVarUint(d)
    for (let i = 0; i < count; i++) {
      decoding.readVarUint(d)
      decoding.readVarUint(d)
      JSON.parse(decoding.readVarString(d))
    }
    if (decoding.hasContent(d)) throw bad()
  } catch {
    throw bad()
  }
}
