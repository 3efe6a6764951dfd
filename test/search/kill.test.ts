// kill -9 of a real `tandem serve` between a commit and its index pass: the update is durable (the
// write answered 200), its document's window still open (a long debounce) so the index never saw
// it; after a restart on the same data dir the start indexes it from the mark the commit left.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { eventually } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

const cleanup: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

it('indexes at the next start a commit whose index pass a kill -9 cut off', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-search-kill-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  const { file, keys } = await sharedSigningKeys(dir)
  const args = ['--data-dir', join(dir, 'data'), '--signing-keys', file, '--demo', '--log-level', 'warn']
  const on = { TANDEM_SEARCH_INDEX: 'on' }
  let proc: TandemProcess = await spawnTandem([...args, '--search-debounce-ms', '600000'], on)
  cleanup.push(() => proc.stop('SIGKILL'))
  // two PGlite first opens (the demo database, the index) share the start: tens of seconds here
  await eventually(() => expect(proc.output()).toMatch(/demo workspace: /), 90_000)
  const apiKey = /demo api key: (\S+)/.exec(proc.output())![1]!
  const ws = /demo workspace: (\S+)/.exec(proc.output())![1]!
  const doc = /demo asset: generic_doc (\S+)/.exec(proc.output())![1]!
  const find = async (p: TandemProcess, q: string): Promise<string[]> => {
    const res = await fetch(`http://127.0.0.1:${p.apiPort}/api/v0/workspaces/${ws}/search?q=${q}`, {
      headers: { 'x-api-key': apiKey },
    })
    expect(res.status).toBe(200)
    return ((await res.json()) as { results: { doc_id: string }[] }).results.map((r) => r.doc_id)
  }
  // the index is open and holds the demo documents (indexed at start, not through a window)
  await eventually(async () => expect((await find(proc, 'welcome')).length).toBeGreaterThan(0), 60_000)

  const { token } = await mintToken(keys, { org: ws, doc, sub: 'kim@example.com', acc: 'rw', ttlSec: 600 })
  const res = await fetch(`${proc.httpUrl}/content/v1/${ws}/${doc}?yauth=${token}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'markdown', content: 'A wombat crossed the road.\n' }),
  })
  expect(res.status).toBe(200)
  expect(await find(proc, 'wombat')).toEqual([])
  await proc.stop('SIGKILL')

  proc = await spawnTandem(args, on)
  await eventually(async () => expect(await find(proc, 'wombat')).toEqual([doc]), 60_000)
}, 300_000)
