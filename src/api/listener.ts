// The API listener: the Koa app on its own port. It only listens: the control plane, the admin
// endpoint and the site sweeper are the server's (src/compose/server.ts).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ApiDeps } from './deps.js'
import { bindWithRetry } from '../infra/listen-retry.js'
import { createApiApp } from './app.js'
import type { ApiContext } from './context.js'

const CLOSE_GRACE_MS = 2_000

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

export async function startApiListener(deps: ApiDeps): Promise<{ port: number; close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = []
  const api: ApiContext = { deps, control: deps.control, onClose: (fn) => void closers.push(fn) }
  const app = createApiApp(api)
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, app.callback())
  server.keepAliveTimeout = 5_000
  try {
    const { host, apiPort } = deps.config
    const port = await bindWithRetry(() => listen(server, apiPort, host), {
      retryMs: deps.config.listenRetrySec * 1000,
      log: deps.log,
      what: `api ${host}:${apiPort}`,
      retryable: (err) => (err as NodeJS.ErrnoException).code === 'EADDRINUSE',
    })
    let closing: Promise<void> | undefined
    return {
      port,
      close() {
        closing ??= (async () => {
          // In-flight requests get a grace period; idle keep-alive sockets go at once.
          await new Promise<void>((resolve) => {
            server.close(() => resolve())
            server.closeIdleConnections()
            setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref()
          })
          for (const fn of closers.reverse()) await fn()
        })()
        return closing
      },
    }
  } catch (err) {
    server.close()
    for (const fn of closers.reverse()) await fn().catch(() => undefined)
    throw err
  }
}
