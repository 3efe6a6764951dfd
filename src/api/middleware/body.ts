// Request bodies: read up to the configured limit (larger is 413 before any parsing), decoded as
// UTF-8, parsed as JSON; a body that is not JSON is described the way CPython's json module would.
import type { Context } from 'koa'
import { AppError } from '../../infra/errors.js'
import { pythonJsonError } from '../validation/python-json.js'

export type RawBody = { kind: 'empty' } | { kind: 'json'; value: unknown } | { kind: 'invalid'; pos: number; msg: string }

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
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit * DRAIN_FACTOR) {
      ctx.set('Connection', 'close')
      throw tooLarge()
    }
    if (size <= limit) chunks.push(chunk)
  }
  if (size > limit) throw tooLarge()
  return Buffer.concat(chunks)
}

const PARSE_FAILED = 'There was an error parsing the body'

export async function readJsonBody(ctx: Context, limit: number): Promise<RawBody> {
  if (ctx.state.rawBody) return ctx.state.rawBody as RawBody
  const bytes = await readBytes(ctx, limit)
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
      try {
        parsed = { kind: 'json', value: JSON.parse(text) }
      } catch {
        let problem: ReturnType<typeof pythonJsonError>
        try {
          problem = pythonJsonError(text)
        } catch {
          throw new AppError('bad_request', PARSE_FAILED) // nesting deeper than a parser's stack
        }
        parsed = problem ? { kind: 'invalid', ...problem } : { kind: 'invalid', pos: 0, msg: 'Expecting value' }
      }
    }
  }
  ctx.state.rawBody = parsed
  return parsed
}
