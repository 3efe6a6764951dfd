// Small helpers over uWS HttpResponse: everything from `req` is copied before any await (uWS
// frees it when the handler returns), aborts are tracked, and late writes are corked.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { AppError } from '../../infra/errors.js'
import type { CopiedRequest, HttpReply } from '../listener/rest-dispatch.js'

export function copyRequest(req: HttpRequest): CopiedRequest {
  const headers = new Map<string, string>()
  req.forEach((k, v) => headers.set(k, v))
  return { method: req.getMethod().toUpperCase(), query: new URLSearchParams(req.getQuery() ?? ''), headers }
}

/** Every header line of `req`, in order (names in lower case), for the client address behind a proxy. */
export function headerLines(req: HttpRequest): () => Array<[string, string]> {
  return () => {
    const lines: Array<[string, string]> = []
    req.forEach((k, v) => lines.push([k, v]))
    return lines
  }
}

/** The peer address of a request or upgrade, as text. */
export const peerOf = (res: HttpResponse): string => Buffer.from(res.getRemoteAddressAsText()).toString()

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
}

/** Bodies larger than this are streamed as the socket drains (tryEnd), not copied by `end`. */
const STREAMED_BODY_BYTES = 1024 * 1024

const statusLine = (status: number) => `${status} ${STATUS_TEXT[status] ?? 'Status'}`

/** A response that is safe to write after awaits: it knows whether the client went away. */
export class Reply implements HttpReply {
  aborted = false
  done = false
  onAbort: (() => void) | null = null
  constructor(
    readonly res: HttpResponse,
    private readonly extraHeaders: () => Record<string, string> = () => ({}),
  ) {
    res.onAborted(() => {
      this.aborted = true
      this.onAbort?.()
    })
  }

  /**
   * Writes on the next turn: a continuation after an await may run inside another socket's uWS
   * callback, and corking this response there is what dropped connections (see ws-handlers.ts).
   */
  send(status: number, body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}): void {
    if (this.aborted || this.done) return
    this.done = true
    setImmediate(() => this.write(status, body, contentType, headers))
  }

  private write(status: number, body: string | Uint8Array, contentType: string, headers: Record<string, string>): void {
    if (this.aborted) return
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status))
      this.res.writeHeader('content-type', contentType)
      for (const [k, v] of Object.entries({ ...this.extraHeaders(), ...headers })) this.res.writeHeader(k, v)
      if (typeof body === 'string' || body.length <= STREAMED_BODY_BYTES) this.res.end(body)
      else this.stream(body)
    })
  }

  /**
   * A large body (a whole document) goes out as the socket takes it: `end` copies what the kernel
   * does not take at once into uWS's buffer, 50 MB beside the 50 MB document for a slow reader.
   */
  private stream(body: Uint8Array): void {
    const start = this.res.getWriteOffset()
    const from = (offset: number): boolean => {
      if (this.aborted) return true
      const [ok, done] = this.res.tryEnd(body.subarray(offset - start), body.length)
      return ok || done
    }
    if (!from(start)) this.res.onWritable(from)
  }

  json(status: number, value: unknown, headers?: Record<string, string>): void {
    const text = JSON.stringify(value)
    // A large answer (a whole document in base64) is streamed as bytes are: `end` would copy it
    // into uWS's buffer, whose capacity a keep-alive connection keeps until it closes.
    this.send(status, text.length > STREAMED_BODY_BYTES ? Buffer.from(text) : text, 'application/json', headers)
  }
}

/**
 * Hands each piece of the body to `onPiece` as it arrives (a copy: uWS neuters its own after the
 * callback), resolving at the body's end; refuses (413) past `limit` bytes without buffering the rest.
 */
export function readPieces(
  res: HttpResponse,
  reply: Reply,
  limit: number,
  declaredLength: number,
  onPiece: (piece: Uint8Array) => void,
): Promise<void> {
  if (declaredLength > limit) return Promise.reject(new AppError('payload_too_large', `body over ${limit} bytes`))
  return new Promise((resolve, reject) => {
    let size = 0
    let settled = false
    reply.onAbort = () => {
      if (!settled) reject(new AppError('bad_request', 'client went away'))
      settled = true
    }
    res.onData((chunk, isLast) => {
      if (settled) return
      size += chunk.byteLength
      if (size > limit) {
        settled = true
        reject(new AppError('payload_too_large', `body over ${limit} bytes`))
        return
      }
      if (chunk.byteLength > 0) onPiece(new Uint8Array(chunk.slice(0)))
      if (isLast) {
        settled = true
        resolve()
      }
    })
  })
}
