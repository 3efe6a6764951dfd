// `tandem serve --demo`: a small world loaded once per data dir, so a new user can call every
// endpoint within a minute. The demo key is kept (in the control plane, inside the data dir) so each
// start prints the same one; real keys are only ever stored hashed.
import { writeFile } from 'node:fs/promises'
import type { DocService } from '../collab/doc-service.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { SiteSweeper } from '../sources/sweeper.js'
import { apiKeyOps, newApiKey } from '../control/api-keys.js'
import { assetOps, getAsset, type Asset } from '../control/assets.js'
import { commentOp, richTextOf, threadOps, type Comment, type Thread } from '../control/comments.js'
import { paragraphsUpdate } from '../content/doc-seed.js'
import { anchorQuote, renderDocText } from '../content/doc-text.js'
import { newId } from '../control/ids.js'
import { sourceOps, type Source, type Sweep } from '../sources/records.js'
import { key, type ControlStore, type Op } from '../control/store.js'
import { userOps } from '../control/users.js'
import { workspaceOps, memberOps } from '../control/workspaces.js'
import { dataDirPath } from '../infra/data-dir.js'

/** What the demo seed writes through: the running server's own parts. */
export interface DemoDeps {
  config: { dataDir: string }
  now: () => number
  docs: DocService
  control: { store: HookedControlStore; sweeper: SiteSweeper }
}

export interface DemoWorld {
  apiKey: string
  workspaceId: string
  assets: { type: string; id: string; title: string }[]
}

const WORLD_KEY = key('demo', 'world')
export const DEMO_USER = 'demo@tandem.local'
const TEAM = [
  { id: 'ada@tandem.local', role: 'admin' as const },
  { id: 'lin@tandem.local', role: 'member' as const },
]
const WORKSPACE = 'demo'
const DOC_ID = 'demo-welcome'
const NOTES_ID = 'demo-release-notes'

const DOC_TEXT = [
  'Welcome to Tandem',
  'This document is a live Yjs document: open it with a collab token and edit it from two tabs.',
  'The asset content endpoint renders it fresh, even while editors are connected.',
  'Comment threads can be anchored to a range of text and follow it as the text around it changes.',
].join('\n')
const ANCHOR_QUOTE = 'anchored to a range of text'

/** Loads the demo world if the control plane has none; returns the world either way. */
export async function seedDemo(deps: DemoDeps): Promise<DemoWorld> {
  const { store, sweeper } = deps.control
  const existing = await store.get<DemoWorld>(WORLD_KEY)
  if (existing) return existing
  // Cluster nodes started together take turns: one seeds, the others find its world (and its key).
  const { world, sweeps } = await store.serial(WORLD_KEY, () => seedWorld(deps, store))
  for (const sw of sweeps) sweeper.kick(sw)
  return world
}

async function seedWorld(deps: DemoDeps, store: ControlStore): Promise<{ world: DemoWorld; sweeps: Sweep[] }> {
  const existing = await store.get<DemoWorld>(WORLD_KEY)
  if (existing) return { world: existing, sweeps: [] }
  const now = deps.now()

  const ops: Op[] = []
  for (const u of [{ id: DEMO_USER }, ...TEAM]) ops.push(...(await userOps(store, u.id, undefined, now)).ops)
  const apiKey = newApiKey()
  ops.push(...apiKeyOps(DEMO_USER, 'demo', apiKey, now).ops)
  ops.push(...workspaceOps({ id: WORKSPACE, name: 'Demo workspace', createdAtMs: now }, DEMO_USER))
  for (const t of TEAM) ops.push(...memberOps({ workspaceId: WORKSPACE, userId: t.id, role: t.role }))

  const doc: Asset = {
    id: DOC_ID,
    workspaceId: WORKSPACE,
    type: 'generic_doc',
    title: 'Welcome to Tandem',
    defaultAccess: 'view',
    createdAtMs: now,
  }
  const notes: Asset = {
    id: NOTES_ID,
    workspaceId: WORKSPACE,
    type: 'file',
    title: 'Release notes',
    defaultAccess: 'view',
    text: 'Tandem 0.1\n- realtime rooms over y-websocket\n- /api/v0 with tool registry, collab tokens, asset content, source readiness',
    createdAtMs: now,
  }
  ops.push(...assetOps(doc, { [DEMO_USER]: 'edit', 'ada@tandem.local': 'edit' }), ...assetOps(notes))

  // The document content goes in first; a retry after a crash finds it and does not add it twice.
  const ref = { org: WORKSPACE, doc: DOC_ID }
  if ((await deps.docs.withDoc(ref, renderDocText)) === '')
    await deps.docs.applyUpdate(ref, paragraphsUpdate(DOC_TEXT), DEMO_USER)
  const anchor = await deps.docs.withDoc(ref, (d) => anchorQuote(d, ANCHOR_QUOTE))

  let t = now
  const thread = (
    opts: Partial<Thread>,
    comments: { user: string; text: string; reactions?: Record<string, string[]>; deleted?: boolean }[],
  ) => {
    const th: Thread = {
      id: newId('th'),
      assetId: DOC_ID,
      level: opts.anchor ? 'anchor' : 'asset',
      data: {},
      nextSeq: comments.length,
      createdAtMs: ++t,
      updatedAtMs: t + comments.length,
      resolvedAtMs: null,
      archivedAtMs: null,
      ...opts,
    }
    ops.push(...threadOps(th))
    comments.forEach((c, seq) => {
      const cm: Comment = {
        id: newId('cm'),
        threadId: th.id,
        seq,
        userId: c.user,
        contentJson: richTextOf(c.text),
        text: c.text,
        reactions: c.reactions ?? {},
        deleted: c.deleted ?? false,
        createdAtMs: ++t,
        updatedAtMs: t,
      }
      ops.push(commentOp(cm))
    })
  }
  thread({ ...(anchor ? { anchor } : {}), data: { kind: 'suggestion' } }, [
    { user: 'ada@tandem.local', text: 'Should we show an example of an anchored thread here?' },
    { user: DEMO_USER, text: 'This thread is one: its anchor is in data.anchor.' },
  ])
  thread({ resolvedAtMs: now + 100 }, [
    { user: 'lin@tandem.local', text: 'Typo in the second paragraph.' },
    { user: DEMO_USER, text: 'Fixed, thanks!' },
  ])
  thread({}, [
    {
      user: DEMO_USER,
      text: 'Ship it?',
      reactions: { '👍': ['ada@tandem.local', 'lin@tandem.local'], '🎉': ['ada@tandem.local'] },
    },
    { user: 'lin@tandem.local', text: '(deleted comment)', deleted: true },
  ])

  // Connected sources in every group; the files account sweeps its sites from a JSON file.
  const sitesFile = dataDirPath(deps.config.dataDir, 'demoSites')
  const sites = Array.from({ length: 120 }, (_, i) => ({
    id: `site-${i + 1}`,
    name: `Team site ${i + 1}`,
    webUrl: `https://contoso.example/sites/team-${i + 1}`,
  }))
  await writeFile(sitesFile, JSON.stringify({ sites }, null, 2))
  const sources: Source[] = [
    { id: newId('src'), userId: DEMO_USER, group: 'mail', provider: 'microsoft', name: 'Outlook', connectedAtMs: now },
    {
      id: newId('src'),
      userId: DEMO_USER,
      group: 'files',
      provider: 'microsoft',
      name: 'OneDrive',
      connectedAtMs: now,
      connector: { kind: 'json-file', path: sitesFile, pageSize: 20 },
    },
    {
      id: newId('src'),
      userId: DEMO_USER,
      group: 'sites',
      provider: 'microsoft',
      name: 'SharePoint',
      connectedAtMs: now,
    },
    { id: newId('src'), userId: DEMO_USER, group: 'chats', provider: 'microsoft', name: 'Teams', connectedAtMs: now },
  ]
  const sweeps: Sweep[] = []
  for (const s of sources) {
    const { sweep, ops: sOps } = sourceOps(s, now)
    ops.push(...sOps)
    if (sweep) sweeps.push(sweep)
  }

  const world: DemoWorld = {
    apiKey: apiKey.secret,
    workspaceId: WORKSPACE,
    assets: [doc, notes].map((a) => ({ type: a.type, id: a.id, title: a.title })),
  }
  if (await getAsset(store, DOC_ID))
    throw new Error('the data dir has demo assets but no demo record; use a fresh data dir')
  ops.push({ type: 'put', key: WORLD_KEY, value: world })
  await store.batch(ops)
  return { world, sweeps }
}

/** Lets other parts (database assets) add themselves to the demo world's list of assets. */
export async function addDemoAsset(deps: DemoDeps, asset: { type: string; id: string; title: string }): Promise<void> {
  const { store } = deps.control
  await store.serial(WORLD_KEY, async () => {
    const world = await store.get<DemoWorld>(WORLD_KEY)
    if (!world || world.assets.some((a) => a.id === asset.id)) return
    await store.batch([{ type: 'put', key: WORLD_KEY, value: { ...world, assets: [...world.assets, asset] } }])
  })
}
