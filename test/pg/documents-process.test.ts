// `tandem serve` on PostgreSQL as real processes: an unreachable server stops the start with a
// message naming the setting, and two processes with their own data dirs share documents through
// one database. The URL (a secret) appears in no output of theirs.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

let pgs: PgServer
let dir: string
const running: TandemProcess[] = []
beforeAll(async () => {
  pgs = await startPostgres()
  dir = await mkdtemp(join(tmpdir(), 'tandem-pgproc-'))
})
afterEach(async () => {
  for (const p of running.splice(0)) await p.stop('SIGKILL')
})
afterAll(async () => {
  await pgs?.close()
  await rm(dir, { recursive: true, force: true })
})

const PASSWORD = 'pw-s3cret-92871'

describe('tandem serve on PostgreSQL', () => {
  it('an unreachable PostgreSQL at start exits non-zero naming the setting, never the URL', async () => {
    const child = spawn(
      process.execPath,
      ['bin/tandem.js', 'serve', '--data-dir', join(dir, 'unreachable'), '--collab-port', '0', '--api-port', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TANDEM_POSTGRES_URL: `postgres://secret-user:${PASSWORD}@127.0.0.1:1/nowhere` },
      },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c))
    child.stderr.on('data', (c: Buffer) => (out += c))
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
    expect(code).not.toBe(0)
    expect(out).toMatch(/postgres-url: cannot reach PostgreSQL/)
    expect(out).not.toContain(PASSWORD)
    expect(out).not.toContain('secret-user')
    expect(out).not.toMatch(/listening/)
  }, 30_000)

  it('two processes with their own data dirs on one database read what the other wrote', async () => {
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${pgs.port}/postgres` // trust auth: any password passes
    const { file, keys } = await sharedSigningKeys(dir)
    const env = { TANDEM_POSTGRES_URL: url, TANDEM_SIGNING_KEYS: file, TANDEM_LOG_LEVEL: 'debug' }
    const [a, b] = await Promise.all(['a', 'b'].map((n) => spawnTandem(['--data-dir', join(dir, `proc-${n}`)], env)))
    running.push(a!, b!)
    const token = async (doc: string) =>
      (await mintToken(keys, { org: 'acme', doc, sub: 'ann@x', acc: 'rw', ttlSec: 600 })).token
    const patch = async (p: TandemProcess, doc: string, text: string) => {
      const d = new Y.Doc()
      d.getText('t').insert(0, text)
      const res = await fetch(`${p.httpUrl}/ydoc/v1/acme/${doc}?yauth=${await token(doc)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: Y.encodeStateAsUpdate(d),
      })
      expect(res.status).toBe(200)
    }
    const read = async (p: TandemProcess, doc: string) => {
      const res = await fetch(`${p.httpUrl}/ydoc/v1/acme/${doc}?yauth=${await token(doc)}`, {
        headers: { accept: 'application/octet-stream' },
      })
      expect(res.status).toBe(200)
      const d = new Y.Doc()
      Y.applyUpdate(d, new Uint8Array(await res.arrayBuffer()))
      return d.getText('t').toString()
    }
    await patch(a!, 'written-by-a', 'from process a')
    expect(await read(b!, 'written-by-a')).toBe('from process a')
    await patch(b!, 'written-by-b', 'from process b')
    expect(await read(a!, 'written-by-b')).toBe('from process b')
    await Promise.all([a!.stop(), b!.stop()])
    for (const p of [a!, b!]) {
      expect(p.output()).toMatch(/"storage":"postgres"/)
      expect(p.output()).not.toContain(PASSWORD)
    }
  }, 60_000)
})
