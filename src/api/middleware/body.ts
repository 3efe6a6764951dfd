// Request bodies: read up to the configured limit (larger is 413 before any parsing), decoded as
// UTF-8, parsed as JSON; a body that is not JSON is described the way CPython's json module would.
// Nesting deeper than the configured depth is refused before JSON.parse builds anything from it.
import type { Context } from 'koa'
import { AppError } from '../../infra/errors.js'
import { tooDeepAt, tooDeepMessage } from '../../infra/json-depth.js'
import { mayHoldInexactNumber, parseExactNumbers } from '../exact-json.js'
import { pythonJsonError } from '../validation/python-json.js'

export type RawBody =
  { kind: 'empty' } | { kind: 'json'; value: unknown } | { kind: 'invalid'; pos: number; msg: string }

// An oversized body is drained (not buffered) up to this many times the limit, so the client gets
// to read its 413; beyond that the connection is closed after the response.
const DRAIN_FACTOR = 8

async function readBytes(ctx: Context, limit: number): Promise<Buffer> {
  const tooLarge = () => new AppError('payload_too_large', `request body is larger than ${limit} bytes`)
  const declared = Number(ctx.get('content-length') || 0)
  if (declared > limit * DRAIN_FACTOR) {
    ctx.set('Connection', 'close')
    throw tooLarge()
  }
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > limit * DRAIN_FACTOR) {
        ctx.set('Connection', 'close')
        throw tooLarge()
      }
      if (size <= limit) chunks.push(chunk)
    }
  } catch (err) {
    // The client hung up mid-body: its fault, not a failed request (and nobody reads the answer).
    if (err instanceof AppError) throw err
    throw new AppError('bad_request', 'the request body ended before its declared length (connection closed)')
  }
  if (size > limit) throw tooLarge()
  return Buffer.concat(chunks)
}

const PARSE_FAILED = 'There was an error parsing the body'

export interface BodyLimits {
  /** bytes */
  maxBytes: number
  /** levels of arrays and objects */
  maxDepth: number
}

export interface BodyOptions {
  /** numbers a double cannot hold are kept as their digits (exact-json.ts), for routes that store them */
  exactNumbers?: boolean
}

export async function readJsonBody(ctx: Context, limits: BodyLimits, opts: BodyOptions = {}): Promise<RawBody> {
  if (ctx.state.rawBody) return ctx.state.rawBody as RawBody
  const bytes = await readBytes(ctx, limits.maxBytes)
  let parsed: RawBody
  if (bytes.length === 0) parsed = { kind: 'empty' }
  else {
    let text: string
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    } catch {
      throw new AppError('bad_request', PARSE_FAILED)
    }
    const type = ctx.request.type
    if (type && !/^application\/(.+\+)?json$/.test(type)) {
      // FastAPI hands a non-JSON body to the model as text, which then is "not an object".
      parsed = { kind: 'json', value: text }
    } else {
      parsed = parseJson(bytes, text, limits.maxDepth, opts.exactNumbers === true)
    }
  }
  ctx.state.rawBody = parsed
  return parsed
}

function parseJson(bytes: Uint8Array, text: string, maxDepth: number, exactNumbers: boolean): RawBody {
  const deepAt = tooDeepAt(bytes, maxDepth)
  if (deepAt < 0) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      value = undefined // described below
    }
    // valid JSON: parsed again, keeping its digits, only when a number may have been rounded
    if (value !== undefined)
      return { kind: 'json', value: exactNumbers && mayHoldInexactNumber(text) ? parseExactNumbers(text) : value }
  }
  // The first problem reading left to right: a syntax error, or the bracket that is one level too
  // deep (the depth bound also bounds the describing scanner's recursion).
  const problem = pythonJsonError(text, maxDepth)
  if (problem) return { kind: 'invalid', ...problem }
  if (deepAt >= 0)
    return {
      kind: 'invalid',
      pos: [...new TextDecoder().decode(bytes.subarray(0, deepAt))].length,
      msg: tooDeepMessage(maxDepth),
    }
  return { kind: 'invalid', pos: 0, msg: 'Expecting value' }
}
