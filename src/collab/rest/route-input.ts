// Validates a collab REST request against its route's declaration: the query (scalars take their
// first value, arrays every value) and the body (JSON, or raw bytes where the route takes them).
// A failure keeps the collab REST's error shape: 400 `bad_request` with the schema's message, or
// 422 `validation` where the schema marks its issue `unprocessable` (see `unprocessable`).
import { z } from 'zod'
import { AppError } from '../../infra/errors.js'

interface InputDecl {
  query?: z.ZodObject
  /**
   * `anyMedia`: the body is read as JSON whatever its content type says (versions and rollback
   * always took `fetch(url, {body: string})`'s text/plain and curl -d's form type)
   */
  body?: {
    json: z.ZodType
    bytes?: boolean
    optional?: boolean
    media?: string
    anyMedia?: boolean
    pieces?: { media: readonly string[] }
  }
}

/** Whether a request of `contentType` is read as pieces by a route of this body declaration. */
export const takesPieces = (decl: InputDecl['body'], contentType: string): boolean =>
  decl?.pieces?.media.some((m) => contentType.startsWith(m)) ?? false

interface RawRequest {
  query: URLSearchParams
  contentType: string
  body: Uint8Array | null
}

/** Marks a custom issue as a 422 (`validation`): well-formed but not acceptable (an attribution's limits, say). */
export const UNPROCESSABLE = { unprocessable: true } as const

/** Adds a 422 issue from `problem` (a message, or null when the value is fine). */
export const unprocessable =
  <T>(problem: (value: T) => string | null) =>
  (value: T, ctx: z.RefinementCtx) => {
    const message = problem(value)
    if (message) ctx.addIssue({ code: 'custom', message, params: UNPROCESSABLE })
  }

/** What a query field takes in, inside optional/default wrappers and transforms (is it an array?). */
function inner(schema: z.ZodType): z.ZodType {
  let s = schema
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType
    else return s
  }
}

function queryObject(schema: z.ZodObject, q: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (inner(field) instanceof z.ZodArray) {
      const all = q.getAll(name)
      if (all.length) out[name] = all
    } else {
      const one = q.get(name)
      if (one !== null) out[name] = one
    }
  }
  return out
}

function checked(schema: z.ZodType, value: unknown): unknown {
  const r = schema.safeParse(value)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  const marked = issue.code === 'custom' && (issue.params as { unprocessable?: boolean } | undefined)?.unprocessable
  throw new AppError(marked ? 'validation' : 'bad_request', issue.message)
}

function bodyOf(decl: NonNullable<InputDecl['body']>, req: RawRequest): unknown {
  const bytes = req.body ?? new Uint8Array()
  if (decl.bytes && req.contentType.startsWith('application/octet-stream')) return bytes
  if (bytes.length === 0 && decl.optional) return checked(decl.json, {})
  // no content type is read as JSON; any other but JSON (and bytes, where taken) is refused
  if (!decl.anyMedia && req.contentType !== '' && !req.contentType.startsWith('application/json')) {
    throw new AppError('unsupported_media_type', decl.media ?? 'send application/json')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw new AppError('bad_request', 'body is not valid JSON')
  }
  return checked(decl.json, parsed)
}

/** The request's query and body, validated; throws the 400/415/422 the caller sees. */
export function routeInput(decl: InputDecl, req: RawRequest): { query: unknown; body: unknown } {
  const query = decl.query ? checked(decl.query, queryObject(decl.query, req.query)) : {}
  // a body read as pieces reaches the handler as it arrives (req.pieces), not here
  const body = decl.body && !takesPieces(decl.body, req.contentType) ? bodyOf(decl.body, req) : undefined
  return { query, body }
}
