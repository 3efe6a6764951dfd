// A throwaway PostgreSQL server for tests: initdb into a temp dir, pg_ctl start on a free port of
// 127.0.0.1 (unix socket in the same dir), stopped and removed by close(). initdb refuses to run as
// root, so as root the server runs as the `postgres` user in a directory that user owns.
import { execFile } from 'node:child_process'
import { chown, mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from './ports.js'

const run = promisify(execFile)
const asRoot = process.getuid?.() === 0

export interface PgServer {
  port: number
  /** URL of the `postgres` database (superuser, trust auth on loopback) */
  url: string
  /** URL of another database of this server */
  urlOf(database: string): string
  /** Runs SQL as the superuser against `database` (default `postgres`). */
  sql(text: string, params?: unknown[], database?: string): Promise<pg.QueryResult>
  createDatabase(name: string): Promise<string>
  stop(): Promise<void>
  start(): Promise<void>
  /** Freezes the server and its backends (SIGSTOP): connections hang instead of failing, as in a partition. */
  freeze(): Promise<void>
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): Promise<void>
  close(): Promise<void>
}

async function cmd(file: string, args: string[], cpus?: string): Promise<void> {
  const argv = asRoot ? ['runuser', '-u', 'postgres', '--', file, ...args] : [file, ...args]
  if (cpus) argv.unshift('taskset', '-c', cpus)
  await run(argv[0]!, argv.slice(1))
}

export interface PostgresOptions {
  /**
   * Keep PostgreSQL's own durability defaults (fsync, synchronous_commit, full_page_writes on), as a
   * production server runs; tests leave it off for speed. The bench uses it.
   */
  durable?: boolean
  /** taskset CPU list for the server and its backends (the bench pins it beside Tandem) */
  cpus?: string
}

/** Sends `signal` to this server's postmaster (first line of postmaster.pid) and its children. */
async function signalServer(data: string, signal: NodeJS.Signals): Promise<void> {
  const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0])
  const children: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid === pid) children.push(Number(entry))
  }
  const pids = [pid, ...children]
  for (const p of signal === 'SIGSTOP' ? pids : pids.reverse()) process.kill(p, signal)
}

export async function startPostgres(o: PostgresOptions = {}): Promise<PgServer> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-pg-'))
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const data = join(dir, 'data')
  await cmd('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'])
  const port = await freePort()
  const fast = o.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${fast}`
  const start = () => cmd('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start'], o.cpus)
  await start()
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  const server: PgServer = {
    port,
    url: urlOf('postgres'),
    urlOf,
    async sql(text, params = [], database = 'postgres') {
      const c = new pg.Client({ connectionString: urlOf(database) })
      await c.connect()
      try {
        return await c.query(text, params)
      } finally {
        await c.end()
      }
    },
    async createDatabase(name) {
      await server.sql(`CREATE DATABASE "${name}"`)
      return urlOf(name)
    },
    stop: () => cmd('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    freeze: () => signalServer(data, 'SIGSTOP'),
    thaw: () => signalServer(data, 'SIGCONT'),
    async close() {
      await server.stop().catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    },
  }
  return server
}
