// One table of error codes: HTTP status, whether the message may be shown to the caller, and the
// WebSocket close code used when the same failure ends a socket.
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'

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
  too_deep: { status: 422, expose: true }, // content nesting past the content depth limit (src/content/depth.ts)
  doc_too_large: { status: 413, expose: true, close: 1009 },
  // updates waiting for what they build on, past the bound (collab/room/held-updates.ts): retry once it arrived
  held_full: { status: 409, expose: true, close: 1013 },
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
  return answerFor(e).message ?? 'internal error'
}

/** How a failure answers on every edge (Koa, collab REST, the upgrade, an open socket). */
export interface ErrorAnswer {
  status: number
  code: ErrorCode | 'internal'
  /** the message a caller may see; null when it must not (each edge says its own generic text) */
  message: string | null
  /** seconds, for a Retry-After header */
  retryAfterSec?: number
  /** what ends a socket on this failure: the table's close code, 1011 for anything else */
  close: CloseCode
}

export function answerFor(e: unknown): ErrorAnswer {
  if (!isAppError(e)) return { status: 500, code: 'internal', message: null, close: CLOSE.internalError }
  const retry = e.extra.retryAfterSec
  return {
    status: e.status,
    code: e.code,
    message: e.expose ? e.message : null,
    ...(retry !== undefined && { retryAfterSec: Math.max(0, Math.ceil(retry)) }),
    close: (ERRORS[e.code] as { close?: CloseCode }).close ?? CLOSE.internalError,
  }
}

/** The collab listener's error body (`{"error", "code"}`) and headers, for the upgrade and collab REST. */
export function collabErrorReply(e: unknown): {
  status: number
  body: { error: string; code: string }
  headers: Record<string, string>
} {
  const a = answerFor(e)
  return {
    status: a.status,
    body: { error: a.message ?? 'internal error', code: a.code },
    headers: a.retryAfterSec ? { 'retry-after': String(a.retryAfterSec) } : {},
  }
}
