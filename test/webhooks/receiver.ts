// A real HTTP webhook receiver on 127.0.0.1: records every request, answers with `status`, and can
// go down and come back up on the same port (a receiver outage).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

interface Received {
  headers: IncomingHttpHeaders
  body: string
  json: { type: string; timestamp: string; data: Record<string, unknown> }
}

export interface Receiver {
  url: string
  port: number
  /** every request, in arrival order (also those answered with an error) */
  all: Received[]
  /** requests answered 2xx */
  accepted: Received[]
  status: number
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

export async function startReceiver(port = 0): Promise<Receiver> {
  let server: Server | null = null
  const r: Receiver = {
    url: '',
    port,
    all: [],
    accepted: [],
    status: 204,
    async up() {
      server = createServer((req, res) => {
        let body = ''
        req.setEncoding('utf8')
        req.on('data', (c: string) => (body += c))
        req.on('end', () => {
          const rec = { headers: req.headers, body, json: JSON.parse(body) as Received['json'] }
          r.all.push(rec)
          if (r.status >= 200 && r.status < 300) r.accepted.push(rec)
          res.statusCode = r.status
          res.end()
        })
      })
      await new Promise<void>((resolve) => server!.listen(r.port, '127.0.0.1', resolve))
      r.port = (server.address() as AddressInfo).port
      r.url = `http://127.0.0.1:${r.port}/hook`
    },
    async down() {
      const s = server
      server = null
      if (!s) return
      s.closeAllConnections()
      await new Promise<void>((resolve) => s.close(() => resolve()))
    },
    close: () => r.down(),
  }
  await r.up()
  return r
}
