// The one error the client throws for an answer that is not 2xx (or no answer at all). It keeps
// the server's own words: `detail` is the body's `detail` (a string, or the 422 list),
// `message` or `error`, else the body's text; `body` is the whole parsed body.
import type { EditRefusal } from './types.js'

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'validation_error',
  429: 'rate_limited',
  501: 'not_implemented',
  503: 'unavailable',
}

export type ErrorDetail =
  | string
  | { loc: (string | number)[]; msg: string; type: string; input?: unknown; ctx?: Record<string, unknown> }[]
  | null

export class TandemError extends Error {
  override readonly name = 'TandemError'

  constructor(
    /** HTTP status; 0 when the server could not be reached */
    readonly status: number,
    /** the body's `code` when it has one (collab REST), else a name for the status (`not_found`, `network`) */
    readonly code: string,
    readonly detail: ErrorDetail,
    /** seconds from a `Retry-After` header (503, 429), else null */
    readonly retryAfterSec: number | null = null,
    /** the parsed body (a 409 carries the current record) */
    readonly body: unknown = null,
  ) {
    super(
      `${status ? `${status} ${code}` : code}${detail === null ? '' : `: ${typeof detail === 'string' ? detail : detail.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ')}`}`,
    )
  }
}

/** A TandemError from a non-2xx response and its body text. */
export function errorOf(
  res: { status: number; headers: { get(name: string): string | null } },
  text: string,
): TandemError {
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // not JSON: the text itself is the detail
  }
  const b = (body && typeof body === 'object' ? body : {}) as {
    detail?: unknown
    message?: unknown
    error?: unknown
    code?: unknown
  }
  const detail: ErrorDetail =
    typeof b.detail === 'string' || Array.isArray(b.detail)
      ? (b.detail as ErrorDetail)
      : typeof b.message === 'string'
        ? b.message
        : typeof b.error === 'string'
          ? b.error
          : typeof body === 'string' && body
            ? body
            : null
  const code = typeof b.code === 'string' ? b.code : (CODES[res.status] ?? `http_${res.status}`)
  const retry = res.headers.get('retry-after')
  return new TandemError(res.status, code, detail, retry !== null && /^\d+$/.test(retry) ? Number(retry) : null, body)
}

const EDIT_REFUSALS: ReadonlySet<string> = new Set<EditRefusal['code']>([
  'no_match',
  'several_matches',
  'changed_since_base',
])

/**
 * The body of a targeted edit's 409 (`DocumentRest.edit`): why the edits were not applied; null for any other error.
 */
export function editRefusal(error: unknown): EditRefusal | null {
  return error instanceof TandemError && error.status === 409 && EDIT_REFUSALS.has(error.code)
    ? (error.body as EditRefusal)
    : null
}
