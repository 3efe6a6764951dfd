// Suggestions survive what servers go through: a kill -9 between suggest and accept (a real process
// on LevelDB, fsync on), and two cluster nodes over PostgreSQL and Redis, suggested on one and
// accepted on the other while a person types through the first.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import type { KeyRing } from '../../src/auth/keys/ring.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, synced } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

type Json = Record<string, any>
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const mint = async (keys: KeyRing, doc: string, sub: string) =>
  (await mintToken(keys, { org: 'acme', doc, sub, acc: 'rw', ttlSec: 600 })).token

async function call(base: string, method: string, path: string, tok: string, body?: unknown) {
  const res = await fetch(`${base}/${path}${path.includes('?') ? '&' : '?'}yauth=${tok}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const md = (ps: string[]) => ps.join('\n\n') + '\n'
const texts = (d: Y.Doc) =>
  (fragmentToPm(d.getXmlFragment('default')).content ?? []).map((p) => (p.content ?? []).map((t) => t.text).join(''))

describe('suggestions and failures', () => {
  it('a kill -9 between suggest and accept: the suggestion is there after the restart, and accepting it works', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-suggest-kill-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const { file, keys } = await sharedSigningKeys(dir)
    const args = ['--data-dir', dir, '--signing-keys', file, '--log-level', 'silent'] // fsync is on by default
    let server: TandemProcess = await spawnTandem(args)
    cleanups.push(() => server.stop('SIGKILL'))
    const ann = await mint(keys, 'k', 'ann')
    await call(server.httpUrl, 'PATCH', 'content/v1/acme/k', ann, {
      format: 'markdown',
      content: md(['Alpha.', 'Beta.']),
    })
    const made = await call(server.httpUrl, 'POST', 'suggestions/v1/acme/k', await mint(keys, 'k', 'bot'), {
      format: 'markdown',
      content: md(['Alpha.', 'Beta, suggested.']),
    })
    expect(made.status).toBe(201)
    await server.stop('SIGKILL')
    server = await spawnTandem(args)
    const listed = await call(server.httpUrl, 'GET', 'suggestions/v1/acme/k?status=open', ann)
    expect(listed.body.suggestions.map((s: Json) => s.id)).toEqual([made.body.suggestion.id])
    const ok = await call(server.httpUrl, 'POST', `suggestions/v1/acme/k/${made.body.suggestion.id}/accept`, ann)
    expect(ok.body).toMatchObject({ applied: true, suggestion: { status: 'accepted' } })
    expect((await call(server.httpUrl, 'GET', 'content/v1/acme/k', ann)).body.content).toBe(
      md(['Alpha.', 'Beta, suggested.']),
    )
  }, 60_000)

  it('two cluster nodes: suggested on one, a person typing on it, accepted hunk by hunk on the other; both agree', async () => {
    const c: ClusterNodes = await startClusterNodes(2, 'suggest_cluster')
    cleanups.push(() => c.close())
    const [a, b] = c.nodes as [NonNullable<ClusterNodes['nodes'][0]>, NonNullable<ClusterNodes['nodes'][0]>]
    const doc = 'clustered'
    const ann = await a.token('acme', doc, { sub: 'ann' })
    await call(a.httpUrl, 'PATCH', `content/v1/acme/${doc}`, ann, {
      format: 'markdown',
      content: md(['One.', 'Two.', 'Three.']),
    })
    const read = (await call(a.httpUrl, 'GET', `content/v1/acme/${doc}`, ann)).body
    const bot = await a.token('acme', doc, { sub: 'bot' })
    const made = await call(a.httpUrl, 'POST', `suggestions/v1/acme/${doc}`, bot, {
      format: 'markdown',
      content: md(['One, bot.', 'Two.', 'Three, bot.']),
      base: read.base,
    })
    expect(made.body.hunks).toHaveLength(2)

    const onA = new Y.Doc()
    await synced(a.provider('acme', doc, ann, onA))
    ;((onA.getXmlFragment('default').get(1) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Ann: ')
    const onB = new Y.Doc()
    await synced(b.provider('acme', doc, await b.token('acme', doc, { sub: 'rita' }), onB))
    await eventually(() => expect(texts(onB)).toEqual(['One.', 'Ann: Two.', 'Three.']))

    const rita = await b.token('acme', doc, { sub: 'rita' })
    const acc = await call(b.httpUrl, 'POST', `suggestions/v1/acme/${doc}/${made.body.suggestion.id}/accept`, rita, {
      hunks: [made.body.hunks[1]],
    })
    expect(acc.status).toBe(200)
    const want = ['One.', 'Ann: Two.', 'Three, bot.']
    await eventually(() => {
      expect(texts(onA)).toEqual(want)
      expect(texts(onB)).toEqual(want)
    })
    const rej = await call(a.httpUrl, 'POST', `suggestions/v1/acme/${doc}/${made.body.suggestion.id}/reject`, ann)
    expect(rej.body.suggestion.status).toBe('partially_accepted')
    expect(
      (await call(b.httpUrl, 'GET', `suggestions/v1/acme/${doc}/${made.body.suggestion.id}`, rita)).body.suggestion
        .status,
    ).toBe('partially_accepted')
  }, 60_000)
})
