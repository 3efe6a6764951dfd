// `tandem migrate`: a LevelDB data dir built through the real server and admin paths (50 documents
// with attributed logs, snapshots, folded and pruned history, every kind of control-plane record,
// signing keys) is copied into PostgreSQL by a run that is interrupted mid-document and then
// resumed; the copy verifies, a server on PostgreSQL serves it exactly as the LevelDB server did,
// nothing is duplicated, and a difference makes the command fail.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { runMigrate, type MigrateIo } from '../../src/cli/migrate.js'
import { seedDemo } from '../../src/demo/world.js'
import { listSweeps } from '../../src/sources/records.js'
import { docIdOf } from '../../src/storage/doc-store.js'
import { asset, call, grant, makeWorld } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const exec = promisify(execFile)
const DAY = 24 * 60 * 60 * 1000
const KINDS = [
  'apikey',
  'asset',
  'comment',
  'demo',
  'grant',
  'member',
  'site',
  'source',
  'sweep',
  'thread',
  'threadid',
  'toolreg',
  'user',
  'userws',
  'ws',
  'wsasset',
]

let pgs: PgServer
let dataDir: string
const t0 = Date.UTC(2026, 10, 1)
let clock = t0

interface Expected {
  apiKey: string
  workspaceId: string
  docs: { org: string; doc: string; text: string }[]
  activity: Record<string, unknown>
  contentWithComments: unknown
  oldToken: string
  logEntries: number
  /** a named version of the first document: its record and text */
  version: { record: Record<string, unknown>; text: string }
  /** a suggestion on the first document, as listed */
  suggestion: Record<string, unknown>
  /** a content base the data dir gave out for the first document */
  contentBase: string
}
let expected: Expected

async function activity(h: Harness, org: string, doc: string): Promise<unknown> {
  const token = (await mintToken(h.server.deps.keys, { org, doc, sub: 'reader', acc: 'r', ttlSec: 600 }, clock)).token
  const res = await fetch(`${h.httpUrl}/activity/v1/${org}/${doc}?yauth=${token}&delta=true`)
  expect(res.status).toBe(200)
  return res.json()
}

/** The data dir: demo world, a workspace with roles and grants, tool registry, 50 documents with history. */
async function buildDataDir(dir: string): Promise<Expected> {
  const h = await startTandem(
    { compactThreshold: 5, siteSweepDelayMs: 0, roomUnloadDelayMs: 0 },
    { now: () => clock },
    dir,
  )
  try {
    const demo = await seedDemo(h.server.deps)
    const w = await makeWorld(h, 'mig')
    await grant(h, w.doc.id, w.users.member, 'edit')
    const reg = await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
      key: w.keys.owner,
      body: { default_visibility: 'hidden', tool: { tool_id: 'web_browse', enabled: false } },
    })
    expect(reg.status).toBe(200)
    const { store } = h.server.deps.control
    await eventually(
      async () =>
        expect((await listSweeps(store)).every((s) => s.phase === 'complete' || s.phase === 'failed')).toBe(true),
      30_000,
    )

    // 50 documents: the world's doc, the demo's, and generic_doc assets; 4-13 attributed updates
    // each. The first ten are edited 40 days back, so reading their history later folds it and
    // prunes their logs.
    const docs: { org: string; doc: string; text: string }[] = [{ org: w.workspaceId, doc: w.doc.id, text: '' }]
    for (const a of demo.assets.filter((x) => x.type === 'generic_doc'))
      docs.push({ org: demo.workspaceId, doc: a.id, text: '' })
    while (docs.length < 50) {
      const a = await asset(h, {
        workspaceId: w.workspaceId,
        type: 'generic_doc',
        title: `doc ${docs.length}`,
        defaultAccess: 'view',
      })
      docs.push({ org: w.workspaceId, doc: a.id, text: '' })
    }
    const users = Object.values(w.users)
    const mirrors = new Map<string, Y.Doc>()
    for (const [i, d] of docs.entries()) {
      const mirror = new Y.Doc()
      mirrors.set(d.doc, mirror)
      const { snapshot, updates } = await h.server.store.load(docIdOf(d.org, d.doc))
      if (snapshot) Y.applyUpdate(mirror, snapshot.state)
      for (const u of updates) Y.applyUpdate(mirror, u.update)
      clock = i < 10 ? t0 - 40 * DAY : t0
      for (let n = 0; n < 4 + (i % 10); n++) {
        clock += 1000
        const before = Y.encodeStateVector(mirror)
        mirror.getText('t').insert(0, `${i}.${n} `)
        await h.server.deps.docs.applyUpdate(
          { org: d.org, doc: d.doc },
          Y.encodeStateAsUpdate(mirror, before),
          users[n % users.length]!,
        )
      }
      d.text = mirror.getText('t').toString()
    }
    // one document edited live through a provider too, by an agent (custom attributions), then saved as a named version
    clock = t0 + 5000
    const live = new Y.Doc()
    const agentToken = (
      await mintToken(
        h.server.deps.keys,
        { org: w.workspaceId, doc: w.doc.id, sub: w.users.owner, acc: 'rw', ttlSec: 600, attr: { source: 'ai' } },
        clock,
      )
    ).token
    const p = h.provider(w.workspaceId, w.doc.id, agentToken, live)
    await synced(p)
    live.getText('t').insert(0, 'live ')
    docs[0]!.text = 'live ' + docs[0]!.text
    await eventually(async () =>
      expect(
        await h.server.deps.docs.withDoc({ org: w.workspaceId, doc: w.doc.id }, (d) => d.getText('t').toString()),
      ).toBe(docs[0]!.text),
    )
    p.destroy()
    const saved = await fetch(`${h.httpUrl}/versions/v1/${w.workspaceId}/${w.doc.id}?yauth=${agentToken}`, {
      method: 'POST',
      body: JSON.stringify({ name: 'before migration' }),
      headers: { 'content-type': 'application/json' },
    })
    expect(saved.status).toBe(201)
    const version = { record: (await saved.json()) as Record<string, unknown>, text: docs[0]!.text }
    const suggested = await fetch(`${h.httpUrl}/suggestions/v1/${w.workspaceId}/${w.doc.id}?yauth=${agentToken}`, {
      method: 'POST',
      body: JSON.stringify({ format: 'text', root: 't', content: `${docs[0]!.text} (suggested)` }),
      headers: { 'content-type': 'application/json' },
    })
    expect(suggested.status).toBe(201)
    const suggestion = ((await suggested.json()) as { suggestion: Record<string, unknown> }).suggestion
    const contentRead = await fetch(
      `${h.httpUrl}/content/v1/${w.workspaceId}/${w.doc.id}?yauth=${agentToken}&format=text&root=t`,
    )
    const contentBase = ((await contentRead.json()) as { base: string }).base

    // reading history writes the checkpoints (side records) and folds the old documents' logs
    clock = t0 + 10_000
    const act: Record<string, unknown> = {}
    for (const d of docs) act[d.doc] = await activity(h, d.org, d.doc)
    let logEntries = 0
    for (const d of docs) for await (const _ of h.server.store.readLog(docIdOf(d.org, d.doc))) logEntries++
    const firstLogged = async (d: { org: string; doc: string }) => {
      for await (const e of h.server.store.readLog(docIdOf(d.org, d.doc))) return e.seq
      return null
    }
    expect(await firstLogged(docs[3]!)).not.toBe(1) // pruned

    const contentWithComments = (
      await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=demo-welcome&include_comments=true`, {
        key: demo.apiKey,
      })
    ).body
    // tokens carry the server's (simulated) time: a token issued in its future is refused
    const oldToken = (
      await mintToken(
        h.server.deps.keys,
        { org: w.workspaceId, doc: w.doc.id, sub: w.users.owner, acc: 'rw', ttlSec: 3600 },
        clock,
      )
    ).token
    const kinds = new Set((await store.scan('', 100_000)).map((r) => r.key.split('/')[0]))
    expect([...kinds].sort()).toEqual(KINDS)
    expect(JSON.stringify(act[w.doc.id])).toContain('"attributes":{"source":"ai"}')
    return {
      apiKey: demo.apiKey,
      workspaceId: w.workspaceId,
      docs,
      activity: act,
      contentWithComments,
      oldToken,
      logEntries,
      version,
      suggestion,
      contentBase,
    }
  } finally {
    await h.close()
  }
}

async function migrate(schema: string, copy?: MigrateIo['copy']) {
  const lines: string[] = []
  const started = Date.now()
  const code = await runMigrate(
    ['--from-data-dir', dataDir, '--postgres-url', pgs.url, '--postgres-schema', schema],
    {},
    { out: (l) => lines.push(l), err: () => undefined, ...(copy ? { copy } : {}) },
  )
  return { code, out: lines.join('\n'), ms: Date.now() - started }
}

beforeAll(async () => {
  // TANDEM_TEST_PG_DURABLE=1: fsync on, to measure the migration time as a deployment would see it
  pgs = await startPostgres({ durable: process.env.TANDEM_TEST_PG_DURABLE === '1' })
  dataDir = await mkdtemp(join(tmpdir(), 'tandem-migrate-'))
  expected = await buildDataDir(dataDir)
}, 180_000)
afterAll(async () => {
  await pgs?.close()
  await rm(dataDir, { recursive: true, force: true })
})

describe('tandem migrate', () => {
  it('copies the 50-document data dir in one run and verifies it', async () => {
    const r = await migrate('full')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^verified: 50 documents/m)
    console.log(`migration of the 50-document data dir (${expected.logEntries} log entries): ${r.ms} ms\n${r.out}`)
  }, 120_000)

  it('an interrupted run resumes without duplicating anything, and the copy serves what the data dir served', async () => {
    let done = 0
    let chunks = 0
    let cutShort = ''
    // crash inside a document after 20 finished ones, after its second chunk of 3 log entries
    const crash = migrate('resumed', {
      chunkEntries: 3,
      onProgress: (p) => {
        if (p.kind === 'document') {
          done++
          chunks = 0
        }
        if (p.kind === 'chunk' && done >= 20 && ++chunks === 2) {
          cutShort = p.docId
          throw new Error('simulated crash')
        }
      },
    })
    await expect(crash).rejects.toThrow('simulated crash')
    const partial = await pgs.sql(
      `SELECT
        (SELECT count(*)::int FROM (SELECT doc_id FROM resumed.doc_updates UNION SELECT doc_id FROM resumed.doc_snapshots) d) AS docs,
        (SELECT count(*)::int FROM resumed.doc_updates WHERE doc_id = $1) AS cut_rows,
        (SELECT count(*)::int FROM resumed.doc_snapshots WHERE doc_id = $1) AS cut_snapshots`,
      [cutShort],
    )
    expect(partial.rows[0].docs).toBeGreaterThan(20)
    expect(partial.rows[0].docs).toBeLessThan(50)
    // the document cut short holds its first two chunks of 3 (the second short when its log ended
    // there) and no snapshot yet
    expect(partial.rows[0].cut_rows).toBeGreaterThan(3)
    expect(partial.rows[0].cut_rows).toBeLessThanOrEqual(6)
    expect(partial.rows[0].cut_snapshots).toBe(0)

    const again = await migrate('resumed', { chunkEntries: 3 })
    expect(again.out).toMatch(/already complete/)
    expect(again.code).toBe(0)
    expect(again.out).toMatch(
      /^verified: 50 documents \(state vectors, text, \d+ log entries and history records equal\), \d+ control records equal, 1 signing keys present/m,
    )
    const rows = await pgs.sql('SELECT count(*)::int AS n FROM resumed.doc_updates')
    expect(rows.rows[0].n).toBe(expected.logEntries)
    // a third run finds everything there
    const third = await migrate('resumed')
    expect(third.code).toBe(0)
    expect(third.out).toMatch(/50 documents \(50 already complete, 0 log entries appended\)/)

    // a server on the database (another data dir) serves the same API keys, text, comments,
    // history, and accepts the data dir's tokens
    const h = await startTandem({ postgresUrl: pgs.url, postgresSchema: 'resumed' }, { now: () => clock })
    try {
      for (const d of expected.docs) {
        expect(await h.server.deps.docs.withDoc({ org: d.org, doc: d.doc }, (doc) => doc.getText('t').toString())).toBe(
          d.text,
        )
        expect(await activity(h, d.org, d.doc)).toEqual(expected.activity[d.doc])
      }
      const content = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=demo-welcome&include_comments=true`, {
        key: expected.apiKey,
      })
      expect(content.body).toEqual(expected.contentWithComments)
      const first = expected.docs[0]!
      const p = h.provider(first.org, first.doc, expected.oldToken)
      await synced(p)
      // named versions come along (and a resumed run did not copy them twice)
      const listed = await fetch(`${h.httpUrl}/versions/v1/${first.org}/${first.doc}?yauth=${expected.oldToken}`)
      expect(((await listed.json()) as { versions: unknown[] }).versions).toEqual([expected.version.record])
      const read = await fetch(
        `${h.httpUrl}/versions/v1/${first.org}/${first.doc}/${String(expected.version.record.id)}?yauth=${expected.oldToken}`,
        { headers: { accept: 'application/octet-stream' } },
      )
      const versionDoc = new Y.Doc()
      Y.applyUpdate(versionDoc, new Uint8Array(await read.arrayBuffer()))
      expect(versionDoc.getText('t').toString()).toBe(expected.version.text)
      // suggestions come along
      const suggestions = await fetch(
        `${h.httpUrl}/suggestions/v1/${first.org}/${first.doc}?yauth=${expected.oldToken}`,
      )
      expect(((await suggestions.json()) as { suggestions: unknown[] }).suggestions).toEqual([expected.suggestion])
      // a content base the data dir gave out is of the old storage: refused, read again
      const stale = await fetch(`${h.httpUrl}/content/v1/${first.org}/${first.doc}?yauth=${expected.oldToken}`, {
        method: 'PATCH',
        body: JSON.stringify({ format: 'text', root: 't', content: `${first.text} late`, base: expected.contentBase }),
        headers: { 'content-type': 'application/json' },
      })
      expect(stale.status).toBe(400)
      expect(await stale.json()).toMatchObject({
        error: expect.stringMatching(/storage migrated.*read the document again/),
      })
      expect(
        await h.server.deps.docs.withDoc({ org: first.org, doc: first.doc }, (doc) => doc.getText('t').toString()),
      ).toBe(first.text)
    } finally {
      await h.close()
    }
  }, 180_000)

  it('the command line copies and verifies, never printing the URL; a database that differs fails the verification', async () => {
    const url = `postgres://postgres:pw-hidden-4471@127.0.0.1:${pgs.port}/postgres` // trust auth: any password passes
    const cli = await exec(
      process.execPath,
      ['bin/tandem.js', 'migrate', '--from-data-dir', dataDir, '--postgres-schema', 'differs'],
      { env: { ...process.env, TANDEM_POSTGRES_URL: url } },
    )
    expect(cli.stdout).toMatch(/^verified: 50 documents/m)
    expect(cli.stdout + cli.stderr).not.toContain('pw-hidden-4471')
    await pgs.sql(`INSERT INTO differs.control_records (key, value) VALUES ('user/intruder@example.com', '{}')`)
    const r = await migrate('differs')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(
      /verification FAILED: 1 differences\n {2}control record user\/intruder@example.com: only in the database/,
    )
  }, 120_000)
})
