// One HTTP exchange: JSON in, JSON (or bytes) out, a TandemError for anything but 2xx. Uses the
// fetch it is given (the global one by default), so it runs in browsers and in Node 20 alike.
import { TandemError, errorOf } from './error.js'

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>

export interface Call {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  headers?: Record<string, string>
  json?: unknown
  /** read the answer as bytes (`Accept: application/octet-stream`) */
  bytes?: boolean
}

export async function exchange<T>(fetchFn: Fetch, url: string, call: Call = {}): Promise<T> {
  const headers: Record<string, string> = {
    accept: call.bytes ? 'application/octet-stream' : 'application/json',
    ...call.headers,
  }
  if (call.json !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetchFn(url, {
      method: call.method ?? 'GET',
      headers,
      ...(call.json !== undefined ? { body: JSON.stringify(call.json) } : {}),
    })
  } catch (err) {
    throw new TandemError(0, 'network', `cannot reach ${new URL(url).origin}: ${(err as Error).message}`)
  }
  if (!res.ok) throw errorOf(res, await res.text())
  if (call.bytes) return new Uint8Array(await res.arrayBuffer()) as T
  const text = await res.text()
  return (text ? JSON.parse(text) : null) as T
}

export const seg = encodeURIComponent
