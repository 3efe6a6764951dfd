// Asset content endpoint (spec 4.7): text of Y.Text and Y.XmlFragment documents, stored text of
// other assets, `{"message"}` errors, and the include_comments rules.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  addComment,
  createThread,
  newThread,
  setThreadState,
  toggleReaction,
  updateComment,
} from '../../src/control/comments.js'
import { anchorQuote } from '../../src/content/doc-text.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { asset, call, grant, makeWorld, type World } from './helpers.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const content = (h: Harness, key: string | undefined, query: string) =>
  call(h, 'GET', `/api/v0/tools/asset/content${query}`, key ? { key } : {})

async function writeDoc(h: Harness, w: World, build: (d: Y.Doc) => void): Promise<void> {
  const d = new Y.Doc()
  build(d)
  await h.server.deps.docs.applyUpdate({ org: w.workspaceId, doc: w.doc.id }, Y.encodeStateAsUpdate(d), 'test')
}

describe.each(BACKENDS)('asset content ($name)', (backend) => {
  it('answers 401 and 404 with a message body', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'errors')
    expect(await content(h, undefined, `?asset_id=${w.doc.id}`)).toMatchObject({
      status: 401,
      body: { message: 'Missing API key' },
    })
    expect(await content(h, 'tdm_0000000000000000_' + 'x'.repeat(43), `?asset_id=${w.doc.id}`)).toMatchObject({
      status: 401,
      body: { message: 'Invalid API key' },
    })
    const missing = await content(h, w.keys.owner, '?asset_id=nope')
    expect(missing).toMatchObject({ status: 404, body: { message: 'Asset not found' } })
    // no permission looks exactly like no asset
    const hidden = await content(h, w.keys.stranger, `?asset_id=${w.doc.id}`)
    expect({ status: hidden.status, body: hidden.body }).toEqual({ status: 404, body: { message: 'Asset not found' } })
  })

  it('renders a Y.XmlFragment document with one paragraph per line, nested blocks included', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'xml')
    await grant(h, w.doc.id, w.users.member, 'view')
    await writeDoc(h, w, (d) => {
      const frag = d.getXmlFragment('default')
      const para = (text: string) => {
        const p = new Y.XmlElement('paragraph')
        const t = new Y.XmlText()
        p.insert(0, [t])
        t.insert(0, text)
        return p
      }
      const heading = new Y.XmlElement('heading')
      const ht = new Y.XmlText()
      heading.insert(0, [ht])
      ht.insert(0, 'Plan')
      ht.format(0, 4, { bold: true })
      const list = new Y.XmlElement('bulletList')
      const item = new Y.XmlElement('listItem')
      item.insert(0, [para('first item')])
      list.insert(0, [item])
      frag.insert(0, [heading, para('Intro text'), list, para('The end')])
    })
    const r = await content(h, w.keys.member, `?asset_id=${w.doc.id}`)
    expect(r).toMatchObject({ status: 200, body: { content: 'Plan\nIntro text\nfirst item\nThe end', comments: null } })
    // beyond the spec: the same document as Markdown
    const md = await content(h, w.keys.member, `?asset_id=${w.doc.id}&format=markdown`)
    expect(md).toMatchObject({
      status: 200,
      body: { content: '# **Plan**\n\nIntro text\n\n- first item\n\nThe end\n', comments: null },
    })
    expect((await content(h, w.keys.member, `?asset_id=${w.doc.id}&format=html`)).status).toBe(422)
  })

  it('renders a Y.Text document as its text', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'text')
    await grant(h, w.doc.id, w.users.owner, 'view')
    await writeDoc(h, w, (d) => d.getText('text').insert(0, 'line one\nline two'))
    expect((await content(h, w.keys.owner, `?asset_id=${w.doc.id}`)).body).toEqual({
      content: 'line one\nline two',
      comments: null,
    })
  })

  it('is fresh while an editor is connected', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'live')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, w.doc.id, await h.token(w.workspaceId, w.doc.id), ydoc)
    await eventually(() => expect(p.synced).toBe(true))
    for (const word of ['one', ' two', ' three']) {
      ydoc.getText('text').insert(ydoc.getText('text').length, word)
      await eventually(async () =>
        expect((await content(h!, w.keys.owner, `?asset_id=${w.doc.id}`)).body.content).toBe(
          ydoc.getText('text').toString(),
        ),
      )
    }
  })

  it('reads a large document (over 256 KiB) in a worker thread, with its comment anchors, while rooms keep answering', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'large')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const filler = 'lorem ipsum dolor sit amet '.repeat(12_000) // ~320 KB
    await writeDoc(h, w, (d) => d.getText('text').insert(0, `${filler}The quick brown fox`))
    const { store } = h.server.deps.control
    const anchor = await h.server.deps.docs.withDoc({ org: w.workspaceId, doc: w.doc.id }, (d) =>
      anchorQuote(d, 'brown fox'),
    )
    await createThread(store, newThread(w.doc.id, { anchor: anchor!, data: {} }, 1000))
    // the event loop keeps turning while the worker reads: a timer every ms counts the turns
    let turns = 0
    const ticker = setInterval(() => turns++, 1)
    const r = await content(h, w.keys.owner, `?asset_id=${w.doc.id}&include_comments=true`)
    clearInterval(ticker)
    expect(r.status).toBe(200)
    expect(r.body.content).toBe(`${filler}The quick brown fox`)
    expect(r.body.comments[0].data.anchor.text).toBe('brown fox')
    expect(turns).toBeGreaterThan(0)
  })

  it('returns the stored text of assets that are not documents', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'file')
    const file = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'notes.txt',
      text: 'stored text',
      defaultAccess: 'view',
    })
    expect((await content(h, w.keys.member, `?asset_id=${file.id}&include_comments=true`)).body).toEqual({
      content: 'stored text',
      comments: [],
    })
  })

  it('includes comments only on request: null when not asked, [] when none, threads in creation order otherwise', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'comments')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    await writeDoc(h, w, (d) => d.getText('text').insert(0, 'The quick brown fox jumps over the lazy dog'))
    const q = `?asset_id=${w.doc.id}&include_comments=true`
    expect((await content(h, w.keys.owner, `?asset_id=${w.doc.id}&include_comments=false`)).body.comments).toBeNull()
    expect((await content(h, w.keys.owner, q)).body.comments).toEqual([])

    const { store } = h.server.deps.control
    const anchor = await h.server.deps.docs.withDoc({ org: w.workspaceId, doc: w.doc.id }, (d) =>
      anchorQuote(d, 'brown fox'),
    )
    const anchored = await createThread(
      store,
      newThread(w.doc.id, { anchor: anchor!, data: { color: 'yellow' } }, 1000),
    )
    const a1 = await addComment(store, anchored.id, { user: w.users.owner, text: 'first' }, 1001)
    const gone = await addComment(store, anchored.id, { user: w.users.admin, text: 'removed' }, 1002)
    const a3 = await addComment(store, anchored.id, { user: w.users.member, text: 'third' }, 1003)
    await updateComment(store, anchored.id, gone.id, (c) => ({ ...c, deleted: true }), 1004)
    await updateComment(
      store,
      anchored.id,
      a1.id,
      (c) => toggleReaction(toggleReaction(c, '👍', w.users.admin), '👍', w.users.member),
      1005,
    )
    const plain = await createThread(store, newThread(w.doc.id, {}, 2000))
    await addComment(store, plain.id, { user: null, text: 'system note' }, 2001)
    await setThreadState(store, plain.id, 'resolved', 2002)

    // the anchored text follows edits made before it
    await writeDoc(h, w, () => undefined)
    const live = new Y.Doc()
    const p = h.provider(w.workspaceId, w.doc.id, await h.token(w.workspaceId, w.doc.id), live)
    await eventually(() => expect(p.synced).toBe(true))
    live.getText('text').insert(0, 'Look: ')

    await eventually(async () => {
      const r = await content(h!, w.keys.owner, q)
      expect(r.body.content).toBe('Look: The quick brown fox jumps over the lazy dog')
      expect(r.body.comments).toEqual([
        {
          id: anchored.id,
          archived_at: null,
          resolved_at: null,
          created_at: new Date(1000).toISOString(),
          updated_at: new Date(1005).toISOString(),
          comments: [
            {
              id: a1.id,
              content_json: a1.contentJson,
              text: 'first',
              created_at: new Date(1001).toISOString(),
              updated_at: new Date(1005).toISOString(),
              reactions: { '👍': [w.users.admin, w.users.member] },
              user_id: w.users.owner,
            },
            {
              id: a3.id,
              content_json: a3.contentJson,
              text: 'third',
              created_at: new Date(1003).toISOString(),
              updated_at: new Date(1003).toISOString(),
              reactions: {},
              user_id: w.users.member,
            },
          ],
          data: {
            color: 'yellow',
            anchor: {
              type: 'yjs-relative-position',
              root: 'text',
              start: anchor!.start,
              end: anchor!.end,
              text: 'brown fox',
            },
          },
          level: 'anchor',
        },
        {
          id: plain.id,
          archived_at: null,
          resolved_at: new Date(2002).toISOString(),
          created_at: new Date(2000).toISOString(),
          updated_at: new Date(2002).toISOString(),
          comments: [expect.objectContaining({ text: 'system note', user_id: null })],
          data: {},
          level: 'asset',
        },
      ])
    })
    expect(JSON.parse(a1.contentJson)).toEqual({
      type: 'doc',
      content: [{ type: 'paragraph', content: [{ type: 'text', text: 'first' }] }],
    })
  })

  it('answers comments: null when the comment data cannot be read', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'broken')
    await grant(h, w.doc.id, w.users.owner, 'view')
    const { store } = h.server.deps.control
    await store.batch([{ type: 'put', key: `thread/${w.doc.id}/th-broken`, value: 'not a thread' }])
    const r = await content(h, w.keys.owner, `?asset_id=${w.doc.id}&include_comments=true`)
    expect(r).toMatchObject({ status: 200, body: { content: '', comments: null } })
  })
})
