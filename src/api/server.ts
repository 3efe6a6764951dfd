// The API listener: the Koa app on its own port, the loopback admin endpoint, and the background
// site sweeper, all started and stopped together.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startAdminEndpoint } from '../admin/endpoint.js'
import { controlPlane } from '../plane.js'
import type { ServerDeps } from '../deps.js'
import { bindWithRetry } from '../infra/listen-retry.js'
import { createApiApp } from './app.js'
import type { ApiContext } from './context.js'

const CLOSE_GRACE_MS = 2_000
/** On a shared database, sweeps another process created (tandem admin) start here within this. */
const SWEEP_RESCAN_MS = 15_000

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

export async function startApiListener(deps: ServerDeps): Promise<{ port: number; close(): Promise<void> }> {
  const control = await controlPlane(deps)
  const closers: (() => Promise<void>)[] = []
  const api: ApiContext = { deps, control, onClose: (fn) => void closers.push(fn) }
  const app = createApiApp(api)
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, app.callback())
  server.keepAliveTimeout = 5_000
  let admin: Awaited<ReturnType<typeof startAdminEndpoint>> | undefined
  try {
    const { host, apiPort } = deps.config
    const port = await bindWithRetry(() => listen(server, apiPort, host), {
      retryMs: deps.config.listenRetrySec * 1000,
      log: deps.log,
      what: `api ${host}:${apiPort}`,
      retryable: (err) => (err as NodeJS.ErrnoException).code === 'EADDRINUSE',
    })
    admin = await startAdminEndpoint(deps, control)
    await control.sweeper.start()
    // Each sweep step runs under the control store's serial lock, so several processes picking up
    // the same sweep take turns step by step and never repeat one.
    const rescan = deps.pg
      ? setInterval(() => control.sweeper.start().catch((err: Error) => deps.log.warn({ err: err.message }, 'sweep rescan failed')), SWEEP_RESCAN_MS)
      : undefined
    rescan?.unref()
    let closing: Promise<void> | undefined
    return {
      port,
      close() {
        closing ??= (async () => {
          clearInterval(rescan)
          await admin?.close()
          await control.sweeper.close()
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
    await admin?.close()
    server.close()
    for (const fn of closers.reverse()) await fn().catch(() => undefined)
    throw err
  }
}
