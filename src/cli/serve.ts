// `tandem serve`: both listeners, the demo world on request, graceful shutdown on SIGTERM/SIGINT.
import { CLOSE } from '@tandem/protocol/close-codes'
import { reloadKeyRing } from '../auth/keys/ring.js'
import { loadConfig } from '../infra/config.js'
import { createLogger } from '../infra/log.js'
import { createServer, type ServerParts } from '../compose/server.js'
import { consoleFiles } from '../api/console/bundle.js'
import type { Logger } from '../infra/log.js'

async function prepareConsole(log: Logger): Promise<boolean> {
  try {
    await consoleFiles()
    return true
  } catch (err) {
    log.error({ err }, 'console bundle unavailable; the api keeps serving')
    return false
  }
}

/** A browsable host: a wildcard bind address is reached through loopback. */
function consoleHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

/** `parts`: what a caller composing its own server passes to createServer (ServerOptions.parts). */
export async function runServe(argv: string[], env: NodeJS.ProcessEnv, parts?: ServerParts): Promise<number> {
  const config = loadConfig(argv, env)
  const log = createLogger(config.logLevel)
  const out = (line: string) => process.stdout.write(line + '\n')
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  // The collab line is printed the moment that listener accepts (a cold restart is measured by it),
  // so signals are handled from before the server exists: a SIGTERM while it starts, seeds the demo
  // or builds the console still shuts down gracefully once it is up.
  const starting = createServer(config, {
    log,
    parts,
    onCollabListening: (port) => out(`collab listening on http://${host}:${port}`),
  })
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down: flushing documents and closing sockets')
      starting
        // A cluster node drains: 1012 tells providers to reconnect (to another node) at once.
        .then((server) =>
          server.cluster
            ? server.close(CLOSE.serviceRestart, 'service restart', { exiting: true })
            : server.close(CLOSE.goingAway, 'server shutting down', { exiting: true }),
        )
        .then(resolve, (err) => {
          log.error({ err }, 'shutdown failed')
          resolve()
        })
    }
    process.on('SIGHUP', () => {
      void starting.then((server) => {
        const keys = server.deps.keys
        ;(keys.refresh ? keys.refresh() : reloadKeyRing(keys, config.dataDir, config.signingKeys)).then(
          () => log.info({ kid: server.deps.keys.signingKid }, 'signing keys reloaded'),
          (err) => log.error({ err }, 'signing keys reload failed; the previous keys stay in force'),
        )
      })
    })
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
  const server = await starting
  if (server.apiPort) out(`api listening on http://${host}:${server.apiPort}`)
  // The console bundle is built (or found fresh) before its URL is printed.
  const consoleReady = server.apiPort ? prepareConsole(log) : Promise.resolve(false)
  if (config.demo) {
    const { seedDemo } = await import('../demo/world.js')
    const { seedDemoDatabase } = await import('../demo/database.js')
    const demo = await seedDemoDatabase(server.deps, await seedDemo(server.deps))
    out(`demo api key: ${demo.apiKey}`)
    out(`demo workspace: ${demo.workspaceId}`)
    for (const a of demo.assets) out(`demo asset: ${a.type} ${a.id} ${a.title}`)
  }
  if (await consoleReady) out(`console: http://${consoleHost(config.host)}:${server.apiPort}/`)
  await stopped
  exitAfterCloseHandshakes()
  return 0
}

// Everything is flushed and closed by now. uWS keeps each closed socket until its peer answers the
// close frame (a peer that never does holds the process ~14 s), and a supervisor that waits for the
// exit before restarting would wait as long: peers get a short grace, then the process ends.
const CLOSE_HANDSHAKE_GRACE_MS = 1_000

function exitAfterCloseHandshakes(): void {
  setTimeout(() => process.exit(), CLOSE_HANDSHAKE_GRACE_MS).unref()
}
