// `npm start` as a user or a service manager runs it: the PID they hold is npm's, and a SIGTERM to
// it must reach the server (its script execs node, so no shell stays between them and the signal).
// Before, the shell died and the server kept listening, orphaned, so the next start met a busy port.
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { eventually } from '../helpers/tandem.js'
import { freePort, listensOn } from '../helpers/ports.js'

const dirs: string[] = []
afterAll(async () => {
  // When the signal did not reach it, the server outlived npm: end it (its command line names the
  // test's own data dir) so a failure leaves no listener behind.
  for (const d of dirs) {
    for (const pid of await pidsNaming(d)) process.kill(pid, 'SIGKILL')
    await rm(d, { recursive: true, force: true })
  }
})

async function pidsNaming(arg: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.split('\0').includes(arg)) pids.push(Number(entry))
  }
  return pids
}

it('SIGTERM to the npm start PID stops the server: both ports are free within 5 s', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tandem-npm-start-'))
  dirs.push(dataDir)
  const [collabPort, apiPort] = [await freePort(), await freePort()]
  const child = spawn(
    'npm',
    [
      'start',
      '--silent',
      '--',
      '--data-dir',
      dataDir,
      '--collab-port',
      String(collabPort),
      '--api-port',
      String(apiPort),
      '--host',
      '127.0.0.1',
      '--log-level',
      'warn',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c))
  child.stderr.on('data', (c: Buffer) => (out += c))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('api listening') && resolve())
      void exited.then((code) => reject(new Error(`npm start exited (${code}) before listening:\n${out}`)))
    })
    expect(await listensOn(collabPort)).toBe(false)

    const signalledAt = Date.now()
    child.kill('SIGTERM')
    await eventually(async () => {
      expect(await listensOn(collabPort), 'collab port still held').toBe(true)
      expect(await listensOn(apiPort), 'api port still held').toBe(true)
    }, 5_000)
    expect(Date.now() - signalledAt).toBeLessThan(5_000)
    await exited
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
})
