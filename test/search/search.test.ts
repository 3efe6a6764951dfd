// Workspace search on a real server, on both storage modes (LevelDB with the embedded PGlite index,
// PostgreSQL with its own): words, phrases and prefixes found with the block id a section read
// takes, pages, permissions in the query, edits over the collab protocol and the content REST
// found within 2 s, delete and restore, a restart, the rebuild command, and bad queries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { admin, asset, call, grant, makeWorld, type World } from '../api/helpers.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'
import { found, search, write } from './helpers.js'

describe.each(BACKENDS)('search on $name', (backend) => {
  let h: Harness
  let w: World
  beforeAll(async () => {
    h = await startTandem({ ...(await backend.overrides()), searchIndex: 'on' })
    w = await makeWorld(h, `search-${backend.name}`)
  }, 120_000)
  afterAll(() => h?.close())

  const doc = (title: string, defaultAccess: 'view' | 'edit' | 'none' = 'view') =>
    asset(h, { workspaceId: w.workspaceId, type: 'generic_doc', title, defaultAccess })

  it('finds words, phrases and prefixes with the matching block, whose id a section read takes', async () => {
    const plan = await doc('Quarterly plan')
    await write(h, plan, 'Introduction to the year\nThe Q3 pricing goes up by ten percent\nClosing words')
    const notes = await doc('Meeting notes')
    await write(h, notes, 'We talked about pricing and Q3 separately\nNothing else')
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'closing')).toEqual([plan.id]),
      30_000,
    )

    const r = await search(h, w.keys.member, w.workspaceId, '"q3 pricing"')
    expect(r.status).toBe(200)
    expect(r.body.results).toHaveLength(1)
    const hit = r.body.results[0]
    expect(hit).toMatchObject({
      doc_id: plan.id,
      title: 'Quarterly plan',
      type: 'generic_doc',
      match: 'text',
      snippet: 'The «Q3» «pricing» goes up by ten percent',
    })
    expect(hit.block).toMatch(/^b-[0-9a-z]+-[0-9a-z]+$/)
    // the block id names that paragraph in a part read
    const tok = await h.token(w.workspaceId, plan.id)
    const section = (await (
      await fetch(`${h.httpUrl}/content/v1/${w.workspaceId}/${plan.id}?yauth=${tok}&view=section&blocks=${hit.block}`)
    ).json()) as { content: string }
    expect(section.content).toBe('The Q3 pricing goes up by ten percent\n')

    // words (stemmed: "prices" finds "pricing") match both; a prefix too; a negation leaves one
    expect((await found(h, w.keys.member, w.workspaceId, 'prices q3')).sort()).toEqual([plan.id, notes.id].sort())
    expect((await found(h, w.keys.member, w.workspaceId, 'perc*')).sort()).toEqual([plan.id])
    expect(await found(h, w.keys.member, w.workspaceId, 'pricing -percent')).toEqual([notes.id])
    // a title match ranks above the same word in another document's text
    const titled = await doc('Pricing handbook')
    await eventually(async () => expect((await found(h, w.keys.member, w.workspaceId, 'pricing'))[0]).toBe(titled.id))
    const top = (await search(h, w.keys.member, w.workspaceId, 'pricing')).body.results[0]
    expect(top).toMatchObject({ match: 'title', block: null, snippet: '«Pricing» handbook' })
  })

  it('pages with limit and offset, and says next only while there is more', async () => {
    const docs = []
    for (let i = 0; i < 5; i++) {
      const d = await doc(`Pager ${i}`)
      await write(h, d, `zebracorn number ${i}`)
      docs.push(d.id)
    }
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'zebracorn')).toHaveLength(5),
      30_000,
    )
    const p1 = (await search(h, w.keys.member, w.workspaceId, 'zebracorn', '&limit=2')).body
    const p2 = (await search(h, w.keys.member, w.workspaceId, 'zebracorn', `&limit=2&offset=${p1.next}`)).body
    const p3 = (await search(h, w.keys.member, w.workspaceId, 'zebracorn', `&limit=2&offset=${p2.next}`)).body
    expect([p1.next, p2.next, p3.next]).toEqual([2, 4, undefined])
    expect([...p1.results, ...p2.results, ...p3.results].map((x: { doc_id: string }) => x.doc_id).sort()).toEqual(
      docs.sort(),
    )
  })

  it('answers only what the caller may view, cut before the page: no count, no snippet of another', async () => {
    const open = await doc('Shared harbour report')
    const closed = await doc('Secret harbour report', 'none')
    const granted = await doc('Granted harbour report', 'none')
    const shut = await doc('Shut harbour report')
    await grant(h, granted.id, w.users.member, 'view')
    await grant(h, shut.id, w.users.member, 'none')
    for (const d of [open, closed, granted, shut]) await write(h, d, 'the harbour is full of ships')
    // the owner has no implicit grant either: only what the workspace default and grants give
    await grant(h, closed.id, w.users.owner, 'view')
    await eventually(
      async () => expect(await found(h, w.keys.owner, w.workspaceId, 'harbour ships')).toHaveLength(4 - 1),
      30_000,
    )
    // the owner may not view `granted`: its index pass is waited for through the member's eyes
    await eventually(
      async () =>
        expect((await found(h, w.keys.member, w.workspaceId, 'harbour ships')).sort()).toEqual(
          [open.id, granted.id].sort(),
        ),
      30_000,
    )
    // a page of one: the hidden documents take no place in it and leave no `next` behind
    const one = (await search(h, w.keys.member, w.workspaceId, 'harbour ships', '&limit=1&offset=1')).body
    expect(one.results).toHaveLength(1)
    expect(one.next).toBeUndefined()
    expect(JSON.stringify(await search(h, w.keys.member, w.workspaceId, 'secret'))).not.toContain(closed.id)
    // a stranger to the workspace, and a member of another one
    expect((await search(h, w.keys.stranger, w.workspaceId, 'harbour')).status).toBe(403)
    const other = await makeWorld(h, `search-other-${backend.name}`)
    const theirs = await asset(h, {
      workspaceId: other.workspaceId,
      type: 'generic_doc',
      title: 'Their harbour',
      defaultAccess: 'view',
    })
    await eventually(async () =>
      expect(await found(h, other.keys.member, other.workspaceId, 'harbour')).toEqual([theirs.id]),
    )
    expect(await found(h, w.keys.member, w.workspaceId, 'their')).toEqual([])
    expect((await search(h, other.keys.member, w.workspaceId, 'harbour')).status).toBe(403)
    expect((await search(h, w.keys.member, 'ws-does-not-exist', 'harbour')).status).toBe(404)
  })

  it('finds an edit made over the collab protocol within 2 s of its commit', async () => {
    const d = await doc('Typed live')
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, d.id, await h.token(w.workspaceId, d.id), ydoc)
    await synced(p)
    const para = new Y.XmlElement('paragraph')
    para.insert(0, [new Y.XmlText('the aardvark waltz')])
    ydoc.getXmlFragment('default').insert(0, [para])
    const typed = Date.now()
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'aardvark')).toEqual([d.id]),
      30_000,
    )
    // the first pass may wait for the engine to open; once open the index follows within 2 s
    ;(para.get(0) as Y.XmlText).insert(0, 'quokka ')
    const again = Date.now()
    await eventually(async () => expect(await found(h, w.keys.member, w.workspaceId, 'quokka')).toEqual([d.id]), 5_000)
    expect(Date.now() - again).toBeLessThan(2_000 + 500)
    expect(typed).toBeGreaterThan(0)
  })

  it('finds a write through the content REST within 2 s', async () => {
    const d = await doc('Written by an agent')
    await eventually(async () => expect(await found(h, w.keys.member, w.workspaceId, 'agent')).toContain(d.id), 30_000)
    const tok = await h.token(w.workspaceId, d.id)
    const res = await fetch(`${h.httpUrl}/content/v1/${w.workspaceId}/${d.id}?yauth=${tok}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'markdown', content: '# Fauna\n\nA narwhal surfaced.\n' }),
    })
    expect(res.status).toBe(200)
    const wrote = Date.now()
    await eventually(async () => expect(await found(h, w.keys.member, w.workspaceId, 'narwhal')).toEqual([d.id]), 5_000)
    expect(Date.now() - wrote).toBeLessThan(2_000 + 500)
  })

  it('drops a deleted document from the index and brings it back on restore', async () => {
    const d = await doc('Ephemeral')
    await write(h, d, 'the platypus sleeps')
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'platypus')).toEqual([d.id]),
      30_000,
    )
    expect((await call(h, 'DELETE', `/api/v0/assets/${d.id}`, { key: w.keys.owner })).status).toBe(200)
    expect(await found(h, w.keys.member, w.workspaceId, 'platypus')).toEqual([])
    const indexed = () => h.server.deps.search.indexer!.index.indexed()
    await eventually(async () => expect(await indexed()).not.toContain(d.id))
    expect((await call(h, 'POST', `/api/v0/assets/${d.id}/restore`, { key: w.keys.owner })).status).toBe(200)
    await eventually(async () => expect(await found(h, w.keys.member, w.workspaceId, 'platypus')).toEqual([d.id]))
  })

  it('keeps the index across a restart, and rebuilds it from the documents on command', async () => {
    const d = await doc('Durable')
    await write(h, d, 'the axolotl remains')
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'axolotl')).toEqual([d.id]),
      30_000,
    )
    await h.restart()
    expect(await found(h, w.keys.member, w.workspaceId, 'axolotl')).toEqual([d.id])
    // entries lost (dropped behind the server's back): the rebuild brings them back
    const index = h.server.deps.search.indexer!.index
    await index.drop(d.id)
    expect(await found(h, w.keys.member, w.workspaceId, 'axolotl')).toEqual([])
    const r = await admin(h.config, 'search', 'rebuild')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/assets indexed/)
    expect(await found(h, w.keys.member, w.workspaceId, 'axolotl')).toEqual([d.id])
  }, 120_000)

  it('answers syntax-heavy queries 200 and empty or huge ones 400 naming the problem, never 500', async () => {
    const d = await doc('Punctuation')
    await write(h, d, "drop table students; it's fine")
    await eventually(
      async () => expect(await found(h, w.keys.member, w.workspaceId, 'students')).toEqual([d.id]),
      30_000,
    )
    for (const q of [
      '"',
      '(',
      ':',
      '&',
      '|',
      '!',
      "'; drop table",
      'a:*',
      '(( "unclosed',
      '\\',
      '%',
      '*',
      '-',
      'or',
      '<->',
      'x'.repeat(500),
    ]) {
      const r = await search(h, w.keys.member, w.workspaceId, q)
      expect({ q, status: r.status }).toEqual({ q, status: 200 })
      expect(Array.isArray(r.body.results)).toBe(true)
    }
    expect(await found(h, w.keys.member, w.workspaceId, "'; drop table")).toEqual([d.id])
    for (const [q, msg] of [
      ['', /empty/],
      ['   ', /empty/],
      ['x'.repeat(10 * 1024), /at most 500/],
    ] as const) {
      const r = await search(h, w.keys.member, w.workspaceId, q)
      expect(r.status).toBe(400)
      expect(r.body.detail).toMatch(msg)
    }
    expect((await search(h, w.keys.member, w.workspaceId, 'x', '&limit=0')).status).toBe(422)
  })
})
