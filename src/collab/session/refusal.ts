// How a failure ends a document's session, for both protocols: the close code of the one error
// table (infra/errors) and a reason short enough for a close frame. y-websocket closes its socket
// with both; Hocuspocus answers the document's PermissionDenied with the reason.
import { TokenRefused } from '../../auth/capability.js'
import { answerFor, publicMessage } from '../../infra/errors.js'
import type { CloseCode } from '@tandem/protocol/close-codes'

/** A close frame's reason is at most 123 bytes; reasons are ASCII, and this leaves room. */
const MAX_REASON_CHARS = 120

export interface Refusal {
  code: CloseCode
  reason: string
}

/** The code and reason a failure ends a session with; a token's as terse as its 401 body ("invalid", "expired"). */
export function refusalOf(err: unknown): Refusal {
  const reason = err instanceof TokenRefused ? `token ${err.message}` : publicMessage(err)
  return { code: answerFor(err).close, reason: cut(reason) }
}

/** `reason` cut to what a close frame carries. */
export function cut(reason: string): string {
  return reason.length > MAX_REASON_CHARS ? reason.slice(0, MAX_REASON_CHARS) : reason
}
