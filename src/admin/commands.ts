// The admin command set over the control plane. The same code runs in the CLI process (no server on
// the data dir) and inside a running server (through the loopback admin endpoint), so both paths
// behave identically. Every command's writes are one LevelDB batch.
import { readFile } from 'node:fs/promises'
import { createApiKey, listApiKeys, revokeApiKey } from '../control/api-keys.js'
import {
  createAsset,
  isGrant,
  listAssets,
  listGrants,
  publicAsset,
  requireAsset,
  setGrant,
  type Grant,
} from '../control/assets.js'
import {
  addComment,
  createThread,
  listComments,
  listThreads,
  newThread,
  requireThread,
  setThreadState,
  toggleReaction,
  updateComment,
} from '../control/comments.js'
import { anchorQuote } from '../content/doc-text.js'
import type { TextAnchor } from '../control/comments.js'
import { paragraphsUpdate } from '../content/doc-seed.js'
import {
  connectSource,
  disconnectSource,
  isGroup,
  listSources,
  listSweeps,
  publicSource,
  type ConnectorSpec,
} from '../sources/records.js'
import type { ControlStore } from '../control/store.js'
import { liftRevocation, listRevocations, revokeTokens } from '../control/token-revocations.js'
import { createUser, listUsers, setUserAgent } from '../control/users.js'
import {
  createWorkspace,
  isRole,
  listMembers,
  listWorkspaces,
  requireWorkspace,
  setMember,
} from '../control/workspaces.js'
import type { DocService } from '../collab/doc-service.js'
import { AppError } from '../infra/errors.js'
import { createDatabaseAsset } from '../database-assets/create.js'
import type { DatabaseRegistry } from '../database-assets/registry.js'
import { assetDatabase } from '../database-assets/resolve.js'
import type { SiteSweeper } from '../sources/sweeper.js'
import type { AssetLifecycle } from '../lifecycle/asset-lifecycle.js'
import { EVENT_TYPES } from '@tandem/api/webhook-events'
import { isEventType } from '../webhooks/events.js'
import { createWebhook, deleteWebhook, listWebhooks, publicWebhook } from '../webhooks/records.js'
import { urlProblem } from '../webhooks/url-guard.js'
import type { Search } from '../search/service.js'
import { need, type AdminArgs } from './args.js'

export interface AdminEnv {
  store: ControlStore
  now: () => number
  /** Document access, for generic_doc text and anchored threads. */
  docs: DocService
  /** Present inside a server: new sweeps start at once (otherwise at the next server start). */
  sweeper?: SiteSweeper
  /** The open databases of database assets (the server's own registry when it runs). */
  databases?: DatabaseRegistry
  /** Deleting and restoring assets (the server's own when it runs: its rooms close at once). */
  lifecycle?: AssetLifecycle
  /** --webhook-allow-private: webhook URLs on private addresses are accepted */
  webhookAllowPrivate?: boolean
  /** the search index (src/search/), when --search-index is on */
  search?: Search
}

function lifecycleOf(e: AdminEnv): AssetLifecycle {
  if (!e.lifecycle) throw new AppError('unavailable', 'asset lifecycle not available here')
  return e.lifecycle
}

export interface AdminResult {
  result: unknown
  /** What a person reads; defaults to a rendering of `result`. */
  text?: string
}

type Handler = (env: AdminEnv, o: Map<string, string>) => Promise<AdminResult>

const ok = (result: unknown, text?: string): AdminResult => (text === undefined ? { result } : { result, text })

function grantOpt(o: Map<string, string>, name: string, fallback: Grant): Grant {
  const g = o.get(name) ?? fallback
  if (!isGrant(g)) throw new AppError('bad_request', `--${name} must be view, edit or none`)
  return g
}

function connectorOpt(o: Map<string, string>): ConnectorSpec | undefined {
  const kind = o.get('connector')
  if (!kind) return undefined
  const pageSize = o.has('page-size') ? Number(o.get('page-size')) : undefined
  const paging = pageSize && Number.isInteger(pageSize) && pageSize > 0 ? { pageSize } : {}
  if (kind === 'graph')
    return {
      kind,
      baseUrl: o.get('graph-url') ?? 'https://graph.microsoft.com/v1.0',
      accessToken: need(o, 'graph-token'),
      ...paging,
    }
  if (kind === 'json-file') return { kind, path: need(o, 'sites-file'), ...paging }
  throw new AppError('bad_request', '--connector must be graph or json-file')
}

/** `--before`: an ISO date, or epoch seconds; default now. */
function beforeOpt(o: Map<string, string>, nowMs: number): number {
  const raw = o.get('before')
  if (raw === undefined) return nowMs
  const ms = /^\d+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw)
  if (!Number.isFinite(ms)) throw new AppError('bad_request', '--before must be an ISO date or epoch seconds')
  return ms
}

const COMMANDS: Record<string, Record<string, Handler>> = {
  users: {
    // --agent: the user is an agent: every key of theirs is an agent's (src/agents/)
    create: async (e, o) =>
      ok(await createUser(e.store, need(o, 'email'), o.get('name'), e.now(), o.get('agent') === 'true')),
    set: async (e, o) => {
      if (!o.has('agent')) throw new AppError('bad_request', '--agent or --agent=false is required')
      return ok(await setUserAgent(e.store, need(o, 'email'), o.get('agent') === 'true'))
    },
    list: async (e) => ok(await listUsers(e.store)),
  },
  keys: {
    // --agent: an agent's key; its user's other keys stay theirs
    create: async (e, o) => {
      const { key, info } = await createApiKey(
        e.store,
        need(o, 'user'),
        o.get('label') ?? '',
        e.now(),
        o.get('agent') === 'true',
      )
      return ok(
        { ...info, key },
        `${info.agent ? "an agent's " : ''}api key for ${info.userId} (id ${info.id}); shown once, store it now:\n${key}`,
      )
    },
    list: async (e, o) => ok(await listApiKeys(e.store, o.get('user'))),
    revoke: async (e, o) => ok(await revokeApiKey(e.store, need(o, 'id'), e.now())),
  },
  workspaces: {
    create: async (e, o) => {
      const id = o.get('id')
      return ok(
        await createWorkspace(
          e.store,
          { name: need(o, 'name'), owner: need(o, 'owner'), ...(id ? { id } : {}) },
          e.now(),
        ),
      )
    },
    list: async (e, o) => ok(await listWorkspaces(e.store, o.get('user'))),
  },
  members: {
    set: async (e, o) => {
      const role = need(o, 'role')
      if (role !== 'none' && !isRole(role))
        throw new AppError('bad_request', '--role must be owner, admin, member or none')
      return ok(await setMember(e.store, need(o, 'workspace'), need(o, 'user'), role))
    },
    list: async (e, o) => ok(await listMembers(e.store, need(o, 'workspace'))),
  },
  assets: {
    create: async (e, o) => {
      const type = need(o, 'type')
      const text = o.has('text-file') ? await readFile(need(o, 'text-file'), 'utf8') : o.get('text')
      const id = o.get('id')
      const fields = {
        workspaceId: need(o, 'workspace'),
        title: need(o, 'title'),
        defaultAccess: grantOpt(o, 'default-access', 'none'),
        ...(id ? { id } : {}),
        ...(text !== undefined && type !== 'generic_doc' ? { text } : {}),
      }
      let asset
      if (type === 'database') {
        // Without --provider: postgres on the server's own --postgres-url when it has one, else pglite.
        if (!e.databases) throw new AppError('bad_request', 'no database registry available')
        asset = await createDatabaseAsset(
          e.store,
          e.databases,
          { ...fields, provider: o.get('provider'), connectionUrl: o.get('connection-url') },
          e.now(),
        )
      } else asset = await createAsset(e.store, { ...fields, type }, e.now())
      if (type === 'generic_doc' && text)
        await e.docs.applyUpdate({ org: asset.workspaceId, doc: asset.id }, paragraphsUpdate(text), 'admin')
      return ok(publicAsset(asset))
    },
    list: async (e, o) => ok((await listAssets(e.store, o.get('workspace'))).map(publicAsset)),
    // An operator acts as `admin`; the owner/admin rule is the API's, for API callers.
    delete: async (e, o) => {
      const d = await lifecycleOf(e).deleteAsset(need(o, 'id'), 'admin', o.get('hard') === 'true')
      return ok(
        d,
        `asset ${d.assetId} ${d.hard ? 'hard deleted: its document, history and data are erased' : 'deleted (restore with: tandem admin assets restore ' + d.assetId + ')'}`,
      )
    },
    restore: async (e, o) => {
      const r = await lifecycleOf(e).restoreAsset(need(o, 'id'), 'admin')
      return ok(r, r.restored ? `asset ${r.assetId} restored` : `asset ${r.assetId} was not deleted`)
    },
    show: async (e, o) => {
      const asset = await requireAsset(e.store, need(o, 'id'))
      return ok({ ...publicAsset(asset), grants: await listGrants(e.store, asset.id) })
    },
  },
  databases: {
    // An operator's SQL (schema, seed rows) run on a database asset: the API has no DDL.
    sql: async (e, o) => {
      const asset = await requireAsset(e.store, need(o, 'asset'))
      if (asset.type !== 'database') throw new AppError('bad_request', `asset ${asset.id} is not a database asset`)
      if (!e.databases) throw new AppError('bad_request', 'no database registry available')
      const sql = o.has('file') ? await readFile(need(o, 'file'), 'utf8') : need(o, 'sql')
      const db = await assetDatabase(e.store, e.databases, asset)
      await db.ready()
      await db.script(sql)
      return ok({ asset: asset.id, ok: true }, `ran the SQL on ${asset.id}`)
    },
  },
  tokens: {
    // Refuses the user's capability tokens (on one document, or one token by --jti) issued before
    // --before (default now): on upgrade, on open sockets and on collab REST.
    revoke: async (e, o) => {
      const now = e.now()
      const [org, doc, jti] = [o.get('org'), o.get('doc'), o.get('jti')]
      const r = await revokeTokens(
        e.store,
        {
          sub: need(o, 'sub'),
          ...(org ? { org } : {}),
          ...(doc ? { doc } : {}),
          ...(jti ? { jti } : {}),
          effect: 'deny',
          beforeMs: beforeOpt(o, now),
          reason: o.get('reason') ?? 'revoked by an operator',
        },
        now,
      )
      return ok(
        r,
        `revoked tokens of ${r.sub}${r.doc ? ` on ${r.doc}` : ''}${r.jti ? ` with jti ${r.jti}` : ` issued before ${new Date(r.beforeMs).toISOString()}`}`,
      )
    },
    // Removes the deny record of exactly that scope (same --sub/--org/--doc/--jti as the revoke).
    unrevoke: async (e, o) => {
      const [org, doc, jti] = [o.get('org'), o.get('doc'), o.get('jti')]
      const sub = need(o, 'sub')
      if (
        !(await liftRevocation(e.store, {
          sub,
          ...(org ? { org } : {}),
          ...(doc ? { doc } : {}),
          ...(jti ? { jti } : {}),
        }))
      ) {
        throw new AppError('not_found', 'no revocation with exactly this scope (see tokens list)')
      }
      return ok({ sub, ...(org ? { org } : {}), ...(doc ? { doc } : {}), ...(jti ? { jti } : {}), lifted: true })
    },
    list: async (e, o) => ok(await listRevocations(e.store, o.get('sub'))),
  },
  webhooks: {
    // the same rules as POST /workspaces/{id}/webhooks; the secret is printed once
    create: async (e, o) => {
      const url = need(o, 'url')
      const events = need(o, 'events')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
      const unknown = events.filter((t) => !isEventType(t))
      if (events.length === 0 || unknown.length > 0)
        throw new AppError('bad_request', `--events: a comma list of ${EVENT_TYPES.join(', ')}`)
      const problem = await urlProblem(url, e.webhookAllowPrivate ?? false)
      if (problem) throw new AppError('bad_request', `--url: ${problem}`)
      await requireWorkspace(e.store, need(o, 'workspace'))
      const w = await createWebhook(
        e.store,
        {
          workspaceId: need(o, 'workspace'),
          url,
          events: events.filter(isEventType),
          description: o.get('description') ?? null,
        },
        e.now(),
      )
      return ok(
        w,
        `webhook ${w.id} for ${w.workspaceId} -> ${w.url} (${w.events.join(', ')}); signing secret, shown once, store it now:\n${w.secret}`,
      )
    },
    list: async (e, o) => ok((await listWebhooks(e.store, need(o, 'workspace'))).map(publicWebhook)),
    delete: async (e, o) => {
      await deleteWebhook(e.store, need(o, 'workspace'), need(o, 'id'))
      return ok({ id: need(o, 'id'), deleted: true })
    },
  },
  grants: {
    set: async (e, o) => {
      const access = need(o, 'access')
      if (access !== 'default' && !isGrant(access))
        throw new AppError('bad_request', '--access must be view, edit, none or default')
      await setGrant(e.store, need(o, 'asset'), need(o, 'user'), access)
      return ok(await listGrants(e.store, need(o, 'asset')))
    },
    list: async (e, o) => ok(await listGrants(e.store, need(o, 'asset'))),
  },
  comments: {
    'create-thread': async (e, o) => {
      const asset = await requireAsset(e.store, need(o, 'asset'))
      const quote = o.get('anchor-text')
      let anchor: TextAnchor | undefined
      if (quote) {
        if (asset.type !== 'generic_doc')
          throw new AppError('bad_request', 'only generic_doc threads can be anchored to text')
        anchor =
          (await e.docs.withDoc({ org: asset.workspaceId, doc: asset.id }, (doc) => anchorQuote(doc, quote))) ??
          undefined
        if (!anchor) throw new AppError('bad_request', `text ${JSON.stringify(quote)} not found in the document`)
      }
      const data = o.has('data') ? (JSON.parse(need(o, 'data')) as Record<string, unknown>) : {}
      const thread = await createThread(e.store, newThread(asset.id, { data, ...(anchor ? { anchor } : {}) }, e.now()))
      if (o.has('text'))
        await addComment(e.store, thread.id, { user: o.get('user') ?? null, text: need(o, 'text') }, e.now())
      return ok(thread)
    },
    add: async (e, o) =>
      ok(await addComment(e.store, need(o, 'thread'), { user: o.get('user') ?? null, text: need(o, 'text') }, e.now())),
    react: async (e, o) => {
      const user = need(o, 'user')
      const emoji = need(o, 'emoji')
      return ok(
        await updateComment(
          e.store,
          need(o, 'thread'),
          need(o, 'comment'),
          (c) => toggleReaction(c, emoji, user),
          e.now(),
        ),
      )
    },
    delete: async (e, o) =>
      ok(
        await updateComment(e.store, need(o, 'thread'), need(o, 'comment'), (c) => ({ ...c, deleted: true }), e.now()),
      ),
    resolve: async (e, o) => ok(await setThreadState(e.store, need(o, 'thread'), 'resolved', e.now())),
    archive: async (e, o) => ok(await setThreadState(e.store, need(o, 'thread'), 'archived', e.now())),
    reopen: async (e, o) => ok(await setThreadState(e.store, need(o, 'thread'), 'open', e.now())),
    list: async (e, o) => {
      const threads = o.has('thread')
        ? [await requireThread(e.store, need(o, 'thread'))]
        : await listThreads(e.store, need(o, 'asset'))
      return ok(
        await Promise.all(threads.map(async (t) => ({ ...t, comments: await listComments(e.store, t.id, true) }))),
      )
    },
  },
  sources: {
    connect: async (e, o) => {
      const group = need(o, 'group')
      if (!isGroup(group)) throw new AppError('bad_request', '--group must be mail, files, sites or chats')
      const connector = connectorOpt(o)
      const { source, sweep } = await connectSource(
        e.store,
        {
          user: need(o, 'user'),
          group,
          provider: o.get('provider') ?? 'microsoft',
          name: o.get('name') ?? group,
          ...(connector ? { connector } : {}),
        },
        e.now(),
      )
      if (sweep) e.sweeper?.kick(sweep)
      return ok({ source: publicSource(source), sweep })
    },
    list: async (e, o) => ok((await listSources(e.store, need(o, 'user'))).map(publicSource)),
    disconnect: async (e, o) =>
      ok(await disconnectSource(e.store, need(o, 'user'), need(o, 'id')).then(() => ({ disconnected: need(o, 'id') }))),
  },
  sweeps: {
    list: async (e, o) => ok(await listSweeps(e.store, o.get('user')?.toLowerCase())),
  },
  search: {
    // every asset (or a workspace's) indexed again from its document; entries of assets gone dropped
    rebuild: async (e, o) => {
      if (!e.search?.indexer)
        throw new AppError('unavailable', 'search is off (--search-index off): nothing to rebuild')
      const r = await e.search.indexer.rebuild(o.get('workspace'))
      return ok(
        { engine: e.search.engine, ...r },
        `search index rebuilt on ${e.search.engine}: ${r.indexed} assets indexed, ${r.dropped} entries of assets gone dropped`,
      )
    },
  },
}

export function adminUsage(): string {
  return Object.entries(COMMANDS)
    .map(([noun, verbs]) => `  tandem admin ${noun} ${Object.keys(verbs).join('|')}`)
    .join('\n')
}

export async function executeAdmin(env: AdminEnv, a: AdminArgs): Promise<AdminResult> {
  const handler = COMMANDS[a.noun]?.[a.verb]
  if (!handler)
    throw new AppError('bad_request', `unknown admin command "${a.noun} ${a.verb}"; commands:\n${adminUsage()}`)
  return handler(env, a.opts)
}
