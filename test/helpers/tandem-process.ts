// `tandem serve` as a child process (bin/tandem.js through tsx), on port 0, with its stdout and
// stderr kept so a test can search them (for secrets that must not appear, for instance).
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateSigningJwk, keyRingFromJwks, type KeyRing } from '../../src/auth/keys/ring.js'
import { transportArgs } from './tandem.js'

export interface TandemProcess {
  child: ChildProcess
  collabPort: number
  /** the /api/v0 listener's port */
  apiPort: number
  httpUrl: string
  wsUrl: string
  /** everything written to stdout and stderr so far */
  output(): string
  /** SIGTERM (graceful) or SIGKILL; resolves once the process has exited */
  stop(signal?: NodeJS.Signals): Promise<void>
}

export async function spawnTandem(args: string[], env: NodeJS.ProcessEnv = {}): Promise<TandemProcess> {
  const child = spawn(
    process.execPath,
    ['bin/tandem.js', 'serve', '--collab-port', '0', '--api-port', '0', ...transportArgs(), ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // the search engine's first open (PGlite initdb, ~10 s of a core here) is left to the suites that search
      env: { ...process.env, TANDEM_SEARCH_INDEX: 'off', ...env },
    },
  )
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c))
  child.stderr!.on('data', (c: Buffer) => (out += c))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const [collabPort, apiPort] = await new Promise<[number, number]>((resolve, reject) => {
    const check = () => {
      const m = /collab listening on http:\/\/[^:]+:(\d+)/.exec(out)
      const a = /api listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (m && a) resolve([Number(m[1]), Number(a[1])])
    }
    child.stdout!.on('data', check)
    void exited.then(() => reject(new Error(`tandem exited early (${child.exitCode ?? child.signalCode}):\n${out}`)))
  })
  return {
    child,
    collabPort,
    apiPort,
    httpUrl: `http://127.0.0.1:${collabPort}`,
    wsUrl: `ws://127.0.0.1:${collabPort}`,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

/** A signing-keys file shared by several processes, so a token minted once works on each. */
export async function sharedSigningKeys(dir: string): Promise<{ file: string; keys: KeyRing }> {
  const jwk = await generateSigningJwk()
  const file = join(dir, 'shared-signing-keys.json')
  await writeFile(file, JSON.stringify({ keys: [jwk] }), { mode: 0o600 })
  return { file, keys: await keyRingFromJwks([jwk], file) }
}
