// kill -9 of a real `tandem serve` with events pending: one already in the outbox (its receiver
// down), one still in an open document.updated window (only its mark is on disk). After a restart
// on the same data dir both arrive, each with the id it would have had.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { eventually } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'
import { startReceiver } from './receiver.js'

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64')

describe('webhooks across kill -9', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  it('delivers every pending event after the process is killed and restarted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-webhook-kill-'))
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const { file, keys } = await sharedSigningKeys(dir)
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const args = [
      '--data-dir',
      join(dir, 'data'),
      '--signing-keys',
      file,
      '--demo',
      '--webhook-allow-private',
      '--webhook-debounce-ms',
      '3000',
      '--log-level',
      'warn',
    ]
    let proc: TandemProcess = await spawnTandem(args)
    cleanup.push(() => proc.stop('SIGKILL'))
    await eventually(() => expect(proc.output()).toMatch(/demo workspace: /), 45_000) // the demo world is seeded first: slow on a loaded machine
    const apiKey = /demo api key: (\S+)/.exec(proc.output())![1]!
    const ws = /demo workspace: (\S+)/.exec(proc.output())![1]!
    const api = (p: TandemProcess, path: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${p.apiPort}/api/v0${path}`, {
        ...init,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      })
    const created = await api(proc, `/workspaces/${ws}/webhooks`, {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, events: ['document.updated'] }),
    })
    expect(created.status).toBe(201)
    const hook = (await created.json()) as { id: string; secret: string }

    const edit = async (p: TandemProcess, doc: string, text: string) => {
      const { token } = await mintToken(keys, { org: ws, doc, sub: 'kim@example.com', acc: 'rw', ttlSec: 600 })
      const y = new Y.Doc()
      y.getText('t').insert(0, text)
      const res = await fetch(`${p.httpUrl}/ydoc/v1/${ws}/${doc}?yauth=${token}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ update: b64(Y.encodeStateAsUpdate(y)) }),
      })
      expect(res.status).toBe(200)
    }

    // 1. in the outbox, undeliverable while the receiver is down
    await receiver.down()
    await edit(proc, 'kill-a', 'first')
    await eventually(async () => {
      const res = await api(proc, `/workspaces/${ws}/webhooks/${hook.id}/deliveries`)
      const { deliveries } = (await res.json()) as { deliveries: { status: string; attempts: number }[] }
      expect(deliveries).toHaveLength(1)
      expect(deliveries[0]!.attempts).toBeGreaterThan(0)
    }, 20_000)
    // 2. acknowledged, its window still open (3 s debounce) when the process dies
    await edit(proc, 'kill-b', 'second')
    await proc.stop('SIGKILL')

    await receiver.up()
    proc = await spawnTandem(args)
    await eventually(
      () => expect(new Set(receiver.accepted.map((e) => e.json.data.doc_id))).toEqual(new Set(['kill-a', 'kill-b'])),
      30_000,
    )
    const verifier = new Webhook(hook.secret)
    for (const e of receiver.accepted) {
      expect(verifier.verify(e.body, e.headers as Record<string, string>)).toEqual(e.json)
      expect(e.json.data.users).toEqual(['kim@example.com'])
    }
  }, 120_000)
})
