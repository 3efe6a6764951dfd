// A throwaway redis-server for tests: a free port on 127.0.0.1, its working dir in a temp dir, no
// persistence unless asked. stop() shuts it down cleanly, kill() SIGKILLs it (failure tests),
// start() brings it back on the same port; close() stops it and removes the dir.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Resolves once something accepts TCP connections on the port (or rejects after timeoutMs). */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1')
      sock.once('connect', () => {
        sock.destroy()
        resolve(true)
      })
      sock.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

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
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'warning']
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
