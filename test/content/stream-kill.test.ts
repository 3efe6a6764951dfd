// kill -9 of a real `tandem serve` in the middle of a stream, a chunk in flight: after a restart
// on the same data dir the document holds every chunk the stream acknowledged, and the one in
// flight either whole (its step was durable) or not at all, never half of a step.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { renderable } from '../../src/content/stream-render.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

const cleanup: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

const SEED = '# Log\n\nFirst entry.\n'

it('keeps what a stream acknowledged and never half a step, across a kill -9', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-stream-kill-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  const { file, keys } = await sharedSigningKeys(dir)
  const args = ['--data-dir', join(dir, 'data'), '--signing-keys', file, '--log-level', 'warn']
  let proc: TandemProcess = await spawnTandem(args)
  cleanup.push(() => proc.stop('SIGKILL'))
  const mint = async (agent: boolean) =>
    (await mintToken(keys, { org: 'acme', doc: 'log', sub: 'bot@x.org', acc: 'rw', agent, ttlSec: 600 })).token
  const token = await mint(true)
  const send = (p: TandemProcess, method: string, tail: string, body?: unknown) =>
    fetch(`${p.httpUrl}/${tail}?yauth=${token}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
  const markdown = async (p: TandemProcess) =>
    ((await (await send(p, 'GET', 'content/v1/acme/log')).json()) as { content: string }).content
  expect((await send(proc, 'PATCH', 'content/v1/acme/log', { format: 'markdown', content: SEED })).status).toBe(200)

  const id = ((await (await send(proc, 'POST', 'stream/v1/acme/log', { at: 'end' })).json()) as { stream: string })
    .stream
  const words = Array.from({ length: 60 }, (_, i) => `word${i} `)
  let acked = ''
  for (const w of words.slice(0, 40)) {
    const r = await send(proc, 'POST', `stream/v1/acme/log/${id}`, { text: w })
    expect(r.status).toBe(200)
    acked += w
  }
  const inFlight = words.slice(40).join('')
  const pending = send(proc, 'POST', `stream/v1/acme/log/${id}`, { text: inFlight }).catch(() => null)
  await proc.stop('SIGKILL')
  await pending

  proc = await spawnTandem(args)
  const shown = (text: string) => `${SEED}\n${renderable(text, false).trimEnd()}\n`
  expect([shown(acked), shown(acked + inFlight)]).toContain(await markdown(proc))
}, 120_000)
