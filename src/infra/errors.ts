// One table of error codes: HTTP status, whether the message may be shown to the caller, and the
// WebSocket close code used when the same failure ends a socket.
import { CLOSE, type CloseCode } from '../protocol/close-codes.js'

const ERRORS = {
  bad_request: { status: 400, expose: true },
  invalid_token: { status: 401, expose: true, close: 4401 },
  token_expired: { status: 401, expose: true, close: 4401 },
  unauthorized: { status: 401, expose: true },
  forbidden: { status: 403, expose: true, close: 4403 },
  read_only: { status: 403, expose: true },
  not_found: { status: 404, expose: true },
  doc_deleted: { status: 404, expose: true, close: 4404 },
  method_not_allowed: { status: 405, expose: true },
  conflict: { status: 409, expose: true },
  payload_too_large: { status: 413, expose: true, close: 1009 },
  unsupported_media_type: { status: 415, expose: true },
  validation: { status: 422, expose: true },
  doc_too_large: { status: 413, expose: true, close: 1009 },
  malformed_message: { status: 400, expose: true, close: 4400 },
  room_full: { status: 503, expose: true, close: 1013 },
  at_capacity: { status: 503, expose: true, close: 1013 },
  rate_limited: { status: 429, expose: true, close: 1008 },
  unavailable: { status: 503, expose: true, close: 1013 },
  not_implemented: { status: 501, expose: true },
  internal: { status: 500, expose: false, close: 1011 },
} as const satisfies Record<string, { status: number; expose: boolean; close?: CloseCode }>

export type ErrorCode = keyof typeof ERRORS

export class AppError extends Error {
  readonly status: number
  readonly expose: boolean
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterSec?: number; details?: unknown } = {},
  ) {
    super(message)
    this.status = ERRORS[code].status
    this.expose = ERRORS[code].expose
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError

/** The message a caller may see: the error's own when exposed, a generic one otherwise. */
export function publicMessage(e: unknown): string {
  return isAppError(e) && e.expose ? e.message : 'internal error'
}

/** The close code that ends a socket on this failure: the table's, 1011 for anything else. */
export function closeCodeOf(e: unknown): CloseCode {
  return (isAppError(e) && (ERRORS[e.code] as { close?: CloseCode }).close) || CLOSE.internalError
}
