// A raw y-websocket protocol client over `ws`, for tests that send exact bytes.
import WebSocket from 'ws'

export interface RawClient {
  ws: WebSocket
  messages: Uint8Array[]
  closed: Promise<{ code: number; reason: string }>
  errors: string[]
  send(bytes: Uint8Array | number[]): void
}

export function rawClient(url: string): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.binaryType = 'nodebuffer'
    const messages: Uint8Array[] = []
    const errors: string[] = []
    const closed = new Promise<{ code: number; reason: string }>((res) =>
      ws.on('close', (code, reason) => res({ code, reason: reason.toString() })),
    )
    ws.on('message', (data: Buffer) => messages.push(new Uint8Array(data)))
    ws.on('open', () => {
      ws.on('error', (e) => errors.push(String(e)))
      resolve({ ws, messages, errors, closed, send: (b) => ws.send(b instanceof Uint8Array ? b : Uint8Array.from(b)) })
    })
    ws.on('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)))
    ws.on('error', reject)
  })
}

/** The HTTP status an upgrade to `url` gets: 101 when it is accepted (then closed at once). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('unexpected-response', (_q, res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    ws.on('error', reject)
  })
}
