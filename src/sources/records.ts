// Connected office-suite sources of a user, and the site sweeps that connecting a files or sites
// account starts. Sweep progress lives here so a restarted server resumes where it stopped.
import { AppError } from '../infra/errors.js'
import { newId, normalizeEmail } from '../control/ids.js'
import { key, type ControlStore, type Op } from '../control/store.js'
import { requireUser } from '../control/users.js'

export const GROUPS = ['mail', 'files', 'sites', 'chats'] as const
export type Group = (typeof GROUPS)[number]
export const isGroup = (g: string): g is Group => (GROUPS as readonly string[]).includes(g)

/** How a sweep reaches the sites of the account. `accessToken` is a secret: never logged or returned. */
export type ConnectorSpec =
  | { kind: 'graph'; baseUrl: string; accessToken: string; pageSize?: number }
  | { kind: 'json-file'; path: string; pageSize?: number }

export interface Source {
  id: string
  userId: string
  group: Group
  provider: string
  name: string
  connectedAtMs: number
  connector?: ConnectorSpec
}

export interface Sweep {
  id: string
  userId: string
  sourceId: string
  phase: 'enumerating' | 'provisioning' | 'complete' | 'failed'
  /** enumeration: the connector's cursor for the next page (null = first page) */
  cursor: string | null
  enumeratedSites: number
  totalSites: number
  provisionedSites: number
  startedAtMs: number
  completedAtMs: number | null
  error?: string
}

export interface Site {
  id: string
  name: string
  webUrl?: string
  searchable: boolean
}

const sourceKey = (user: string, id: string) => key('source', user, id)
export const sweepKey = (user: string, id: string) => key('sweep', user, id)
export const siteKey = (sweep: string, seq: number) => key('site', sweep, String(seq).padStart(10, '0'))
export const sweepLock = (sweep: string) => key('sweep', sweep)

export async function connectSource(
  store: ControlStore,
  s: { user: string; group: Group; provider: string; name: string; connector?: ConnectorSpec },
  nowMs: number,
): Promise<{ source: Source; sweep: Sweep | null }> {
  const user = await requireUser(store, s.user)
  if (s.connector && s.group !== 'files' && s.group !== 'sites')
    throw new AppError('bad_request', 'only files and sites sources sweep sites')
  const source: Source = {
    id: newId('src'),
    userId: user.id,
    group: s.group,
    provider: s.provider,
    name: s.name,
    connectedAtMs: nowMs,
    ...(s.connector ? { connector: s.connector } : {}),
  }
  const { sweep, ops } = sourceOps(source, nowMs)
  await store.batch(ops)
  return { source, sweep }
}

/** The source record, plus a fresh sweep when the source carries a site connector. */
export function sourceOps(source: Source, nowMs: number): { sweep: Sweep | null; ops: Op[] } {
  const ops: Op[] = [{ type: 'put', key: sourceKey(source.userId, source.id), value: source }]
  if (!source.connector) return { sweep: null, ops }
  const sweep: Sweep = {
    id: newId('sw'),
    userId: source.userId,
    sourceId: source.id,
    phase: 'enumerating',
    cursor: null,
    enumeratedSites: 0,
    totalSites: 0,
    provisionedSites: 0,
    startedAtMs: nowMs,
    completedAtMs: null,
  }
  ops.push({ type: 'put', key: sweepKey(source.userId, sweep.id), value: sweep })
  return { sweep, ops }
}

export async function getSource(store: ControlStore, userId: string, id: string): Promise<Source | undefined> {
  return store.get<Source>(sourceKey(userId, id))
}

export async function listSources(store: ControlStore, email: string): Promise<Source[]> {
  return (await store.list<Source>(key('source', normalizeEmail(email)))).map((r) => r.value)
}

export async function disconnectSource(store: ControlStore, email: string, id: string): Promise<void> {
  const userId = normalizeEmail(email)
  if (!(await getSource(store, userId, id))) throw new AppError('not_found', `no source ${id}`)
  await store.batch([{ type: 'del', key: sourceKey(userId, id) }])
}

export async function listSweeps(store: ControlStore, userId?: string): Promise<Sweep[]> {
  return (await store.list<Sweep>(userId ? key('sweep', userId) : 'sweep')).map((r) => r.value)
}

/** Source record as shown to operators and the API: connector secrets removed. */
export function publicSource(s: Source): Omit<Source, 'connector'> & { connector?: string } {
  const { connector, ...rest } = s
  return connector ? { ...rest, connector: connector.kind } : rest
}
