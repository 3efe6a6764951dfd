// History calls on a real server take their turn among the process's transient Y.Docs (the room
// registry's DocBuilds, counted by the memory budget): while every turn is held, changeset and
// rollback wait; once one is given back they answer, exactly as before.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { DocBuilds } from '../../src/collab/room/doc-builds.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h.close())

const TURNS = 2 // the registry's DocBuilds: two Y.Docs at once

/** Takes every turn of `builds`; resolves with their release once all are held. */
async function holdAll(builds: DocBuilds): Promise<() => void> {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  const take = () =>
    new Promise<void>((granted) => {
      void builds.bounded(0, () => {
        granted()
        return held
      })
    })
  await Promise.all(Array.from({ length: TURNS }, take))
  return release
}

/** Whether `p` is still pending after `ms`. */
const pendingAfter = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms))])

describe('history calls and the process builds', () => {
  it('changeset and rollback wait while every build turn is held, then answer as before', async () => {
    let clock = Date.now()
    h = await startTandem({}, { api: false, now: () => clock })
    const token = await h.token('acme', 'queued', { sub: 'ann' })
    const url = (name: string, query = '') => `${h.httpUrl}/${name}/v1/acme/queued?yauth=${token}${query}`
    const doc = new Y.Doc()
    const edit = async (at: number, change: (t: Y.Text) => void) => {
      clock = at
      const before = Y.encodeStateVector(doc)
      change(doc.getText('t'))
      const update = Y.encodeStateAsUpdate(doc, before)
      const res = await fetch(url('ydoc'), {
        method: 'PATCH',
        body: JSON.stringify({ update: Buffer.from(update).toString('base64') }),
        headers: { 'content-type': 'application/json' },
      })
      expect(res.status).toBe(200)
    }
    const t0 = clock
    await edit(t0 + 1000, (t) => t.insert(0, 'Hello'))
    await edit(t0 + 2000, (t) => t.insert(5, ' world'))
    clock = t0 + 3000

    // the changeset ends before the rollback's own change, so the two may run in either order
    const builds = h.server.registry.docBuilds
    const release = await holdAll(builds)
    const changeset = fetch(url('changeset', `&from=${t0 + 1500}&to=${t0 + 2500}`)).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, any>,
    }))
    const rollback = fetch(url('rollback'), {
      method: 'POST',
      body: JSON.stringify({ to: t0 + 1500 }),
      headers: { 'content-type': 'application/json' },
    }).then(async (r) => ({ status: r.status, body: await r.json() }))
    expect(await pendingAfter(changeset, 300)).toBe(true)
    expect(await pendingAfter(rollback, 0)).toBe(true)
    expect(builds.bytesInUse).toBe(0) // waiting, nothing built
    release()

    const cs = await changeset
    expect(cs.status).toBe(200)
    expect(cs.body).toMatchObject({ inserted: 6, deleted: 0, by: ['ann'], truncated: false })
    expect(cs.body.roots.t.delta).toEqual([
      { insert: 'Hello' },
      { insert: ' world', attribution: { insert: ['ann'], insertAt: t0 + 2000 } },
    ])
    expect(await rollback).toEqual({ status: 200, body: { applied: true, removed: 6, restored: 0, reformatted: 0 } })
    const state = new Uint8Array(
      await (await fetch(url('ydoc'), { headers: { accept: 'application/octet-stream' } })).arrayBuffer(),
    )
    const now = new Y.Doc()
    Y.applyUpdate(now, state)
    expect(now.getText('t').toString()).toBe('Hello')
    expect(builds.bytesInUse).toBe(0)
  })
})
