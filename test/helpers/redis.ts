// A throwaway redis-server for tests: a free port on 127.0.0.1, its working dir in a temp dir, no
// persistence unless asked. stop() shuts it down cleanly, kill() SIGKILLs it (failure tests),
// start() brings it back on the same port; close() stops it and removes the dir.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { freePort, waitForPort } from './ports.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll } from 'vitest'

export interface RedisServer {
  port: number
  url: string
  /** true while the process runs */
  readonly running: boolean
  stop(): Promise<void>
  kill(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

export interface RedisOptions {
  /** append-only file with fsync on every write, so data survives kill() */
  persist?: boolean
}

export { freePort, waitForPort } from './ports.js'

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

export async function startRedis(opts: RedisOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-redis-'))
  const port = await freePort()
  let child: ChildProcess | null = null
  let output = ''

  const start = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ]
    args.push(...(opts.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']))
    const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    c.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)))
    c.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)))
    child = c
    const died = exited(c).then(() => {
      throw new Error(`redis-server exited at start (code ${c.exitCode}): ${output}`)
    })
    await Promise.race([waitForPort(port), died])
  }

  const halt = async (signal: NodeJS.Signals) => {
    const c = child
    if (!c) return
    child = null
    c.kill(signal)
    await exited(c)
  }

  await start()
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== null
    },
    // SIGTERM: redis-server shuts down cleanly (no save: --save '' and no AOF unless persist).
    stop: () => halt('SIGTERM'),
    kill: () => halt('SIGKILL'),
    start: async () => {
      if (child) return
      await start()
    },
    async close() {
      await halt('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    },
  }
  return server
}

/**
 * One redis-server for a test file: started before its tests, closed after them, and started
 * again after any test that stopped or killed it. Call it at the top level before the file's own
 * afterEach: vitest runs after-hooks in reverse, so a test's clients close before Redis is back.
 */
export function redisPerFile(opts: RedisOptions = {}): () => RedisServer {
  let server: RedisServer | undefined
  beforeAll(async () => {
    server = await startRedis(opts)
  })
  afterAll(async () => {
    await server?.close()
  })
  afterEach(async () => {
    if (server && !server.running) await server.start()
  })
  return () => server!
}
