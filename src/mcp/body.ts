// The body of a POST to /mcp. It must take whatever read_document gives, so its limit follows the
// document limit, not the /api/v0 one: twice --max-doc-bytes (JSON escaping at most doubles text
// as documents hold it: quotes, backslashes, line breaks) plus --max-body-bytes for the rest of the
// message. A body /mcp cannot read (over that, nested past --max-json-depth, not JSON) is not an
// exception: it comes back with the reason, naming the limit, and the envelope (id, method) read
// from its ends, so the call can be answered as a tool error (sessions.ts).
import type { Context } from 'koa'
import { AppError } from '../infra/errors.js'
import { tooDeepAt } from '../infra/json-depth.js'
import { envelopeOf, type Envelope } from './envelope.js'

export interface McpBodyLimits {
  /** --max-doc-bytes */
  maxDocBytes: number
  /** --max-body-bytes (the /api/v0 limit) */
  maxBodyBytes: number
  /** the larger of --max-json-depth and what a ProseMirror document at the content depth limit needs */
  maxDepth: number
}

/** What /mcp could not read: the answer's status and reason, and the message's envelope. */
export interface Unread {
  status: 400 | 413
  reason: string
  envelope: Envelope
}

type McpBody = { kind: 'json'; value: unknown } | ({ kind: 'unread' } & Unread)

/** The first and last bytes kept of a body too large to keep whole (its envelope is there). */
const ENDS = 4096
/** A body past its limit is drained (its ends kept) up to this many times the limit; beyond, the connection closes. */
const DRAIN_FACTOR = 4

const mcpBodyBytes = (l: McpBodyLimits): number => 2 * l.maxDocBytes + l.maxBodyBytes

interface Read {
  bytes: Buffer | null
  head: Buffer
  tail: Buffer
  size: number
}

async function readEnds(ctx: Context, limit: number): Promise<Read> {
  const chunks: Buffer[] = []
  let head = Buffer.alloc(0)
  let tail = Buffer.alloc(0)
  let size = 0
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (head.length < ENDS) head = Buffer.concat([head, chunk.subarray(0, ENDS - head.length)])
      tail = Buffer.concat([tail, chunk]).subarray(-ENDS)
      if (size <= limit) chunks.push(chunk)
      else chunks.length = 0
      if (size > limit * DRAIN_FACTOR) {
        ctx.set('Connection', 'close')
        return { bytes: null, head, tail: Buffer.alloc(0), size }
      }
    }
  } catch {
    throw new AppError('bad_request', 'the request body ended before its declared length (connection closed)')
  }
  return { bytes: size <= limit ? Buffer.concat(chunks) : null, head, tail, size }
}

const decode = (b: Buffer) => b.toString('utf8')

export async function readMcpBody(ctx: Context, l: McpBodyLimits): Promise<McpBody> {
  const limit = mcpBodyBytes(l)
  const unread = (status: 400 | 413, reason: string, r?: Read): McpBody => ({
    kind: 'unread',
    status,
    reason,
    envelope: r ? envelopeOf(decode(r.head), decode(r.tail)) : {},
  })
  const type = ctx.request.type
  if (type && !/^application\/(.+\+)?json$/.test(type))
    return unread(400, 'send a JSON-RPC message as application/json')
  const declared = Number(ctx.get('content-length') || 0)
  const tooLarge = (size: string) =>
    `this request is ${size} bytes; /mcp reads at most ${limit} bytes: twice --max-doc-bytes (${l.maxDocBytes} bytes) plus --max-body-bytes (${l.maxBodyBytes} bytes)`
  if (declared > limit * DRAIN_FACTOR) {
    ctx.set('Connection', 'close')
    return unread(413, tooLarge(String(declared)))
  }
  const r = await readEnds(ctx, limit)
  if (!r.bytes)
    return unread(
      413,
      tooLarge(r.size > limit * DRAIN_FACTOR ? `more than ${limit * DRAIN_FACTOR}` : String(r.size)),
      r,
    )
  if (r.bytes.length === 0) return unread(400, 'the request has no body: send a JSON-RPC message')
  if (tooDeepAt(r.bytes, l.maxDepth) >= 0)
    return unread(
      400,
      `the request's JSON is nested deeper than ${l.maxDepth} levels (the larger of --max-json-depth and what a document at the content depth limit needs)`,
      r,
    )
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(r.bytes)
  } catch {
    return unread(400, 'the request is not UTF-8 text', r)
  }
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown }
  } catch (err) {
    return unread(400, `the request is not valid JSON: ${(err as Error).message}`, r)
  }
}
