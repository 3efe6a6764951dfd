// Small helpers over node:http for the `ws` transport: a reply that knows whether the client went
// away, the body read within a limit, the request copied for the shared routes, and an HTTP answer
// written on the raw socket of an upgrade that is refused.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { AppError } from '../../infra/errors.js'
import type { CopiedRequest, HttpReply } from '../listener/rest-dispatch.js'

export class NodeReply implements HttpReply {
  private done = false
  constructor(
    private readonly res: ServerResponse,
    private readonly extraHeaders: () => Record<string, string> = () => ({}),
  ) {}

  // node:http holds a Buffer body by reference until the socket takes it: no copy, and no need to stream.
  send(status: number, body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}): void {
    if (this.done || this.res.destroyed) return
    this.done = true
    this.res.writeHead(status, { 'content-type': contentType, ...this.extraHeaders(), ...headers })
    this.res.end(body)
  }

  json(status: number, value: unknown, headers?: Record<string, string>): void {
    this.send(status, JSON.stringify(value), 'application/json', headers)
  }
}

/** Method, query and headers (the last value of a repeated one), as the shared routes read them. */
export function copyRequest(req: IncomingMessage, query: URLSearchParams): CopiedRequest {
  const headers = new Map<string, string>()
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
  return { method: (req.method ?? 'GET').toUpperCase(), query, headers }
}

/** Every header line of `req`, in order, names in lower case (for the client address behind a proxy). */
export function headerLines(req: IncomingMessage): () => Array<[string, string]> {
  return () => {
    const lines: Array<[string, string]> = []
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      lines.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!])
    return lines
  }
}

/** The peer address as uWS gives it: IPv4 as dotted text, IPv6 in full (an IPv4-mapped one as IPv4). */
export function peerOf(req: IncomingMessage): string {
  const addr = req.socket.remoteAddress ?? ''
  return addr.startsWith('::ffff:') && addr.includes('.') ? addr.slice(7) : addr
}

/** Hands each piece of the body to `onPiece` as it arrives, resolving at its end; refuses (413) past `limit` bytes. */
export function readPieces(
  req: IncomingMessage,
  limit: number,
  declaredLength: number,
  onPiece: (piece: Uint8Array) => void,
): Promise<void> {
  if (declaredLength > limit) return Promise.reject(new AppError('payload_too_large', `body over ${limit} bytes`))
  return new Promise((resolve, reject) => {
    let size = 0
    const fail = (err: AppError) => {
      req.removeAllListeners('data')
      req.resume() // the rest is read and dropped, so the answer can still go out on this connection
      reject(err)
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) fail(new AppError('payload_too_large', `body over ${limit} bytes`))
      else onPiece(chunk)
    })
    req.once('end', () => resolve())
    // 'aborted' is deprecated; a request closed before its end is the same thing
    req.once('close', () => {
      if (!req.complete) fail(new AppError('bad_request', 'client went away'))
    })
  })
}

/** An HTTP answer on the socket of an upgrade refused before the 101, then the socket closed. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body)
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Status'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(text)}`,
    'connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ]
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`)
}
