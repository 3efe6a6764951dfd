// One delivery attempt: a signed POST, redirects not followed, at most MAX_RESPONSE_BYTES of the
// answer read, the whole attempt bounded by the timeout. Unless private targets are allowed, the
// connection's own DNS answer is checked, so a name cannot be pointed at 127.0.0.1 after it was
// registered (no second lookup to race).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { isPrivateAddress } from './url-guard.js'

const MAX_RESPONSE_BYTES = 64 * 1024 // 64 KiB

export interface AttemptResult {
  /** a 2xx answer arrived in time */
  ok: boolean
  statusCode: number | null
  /** why there was no answer (timeout, refused address, connection error) */
  error: string | null
}

const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0)
    const list = addresses as unknown as LookupAddress[]
    const bad = list.find((a) => isPrivateAddress(a.address))
    if (bad || list.length === 0)
      return callback(
        Object.assign(new Error('webhook host resolves to a private address'), { code: 'EPRIVATE' }),
        '',
        0,
      )
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list)
    callback(null, list[0]!.address, list[0]!.family)
  })
}

export function attempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  o: { timeoutMs: number; allowPrivate: boolean; signal?: AbortSignal },
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let settled = false
    const done = (r: AttemptResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(r)
    }
    const target = new URL(url)
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'tandem-webhooks',
        },
        ...(o.allowPrivate ? {} : { lookup: guardedLookup }),
        agent: false,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          // the answer's body is not needed: stop reading once the bound is passed
          if (read > MAX_RESPONSE_BYTES) done({ ok: status >= 200 && status < 300, statusCode: status, error: null })
        })
        res.on('end', () => done({ ok: status >= 200 && status < 300, statusCode: status, error: null }))
        res.on('error', () => done({ ok: false, statusCode: status, error: 'response interrupted' }))
      },
    )
    const timer = setTimeout(
      () => done({ ok: false, statusCode: null, error: `no answer within ${o.timeoutMs} ms` }),
      o.timeoutMs,
    )
    o.signal?.addEventListener('abort', () => done({ ok: false, statusCode: null, error: 'aborted' }), { once: true })
    req.on('error', (err: NodeJS.ErrnoException) =>
      done({
        ok: false,
        statusCode: null,
        error: err.code === 'EPRIVATE' ? err.message : `connection failed (${err.code ?? 'error'})`,
      }),
    )
    req.end(body)
  })
}
