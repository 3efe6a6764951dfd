// Where the load goes and with which tokens. Two ways in, as the two kinds of user have them:
// an operator's signing keys (tokens minted here for documents the load names, any user id), or
// an API key (tokens from collab-token for generic_doc assets, the deployment's own lifetime).
// Both give, per room, the socket URL and a token renewed before it expires.
import { TandemClient, type CollabToken } from '@tandem/client'
import { mintToken } from '../auth/capability.js'
import { loadKeyRing, type KeyRing } from '../auth/keys/ring.js'
import type { Target as ClientTarget } from './client.js'
import type { Protocol, TargetOptions } from './options.js'

interface RoomToken {
  /** socket URL with the token (`.../{org}/{doc}?yauth=...`) */
  url: string
  /** the collab listener's root URL (a Hocuspocus socket's) and the document's name there */
  root: string
  docName: string
  token: string
  expiresAtMs: number
}

/** What a load client connects to, in the protocol the load speaks. */
export function clientTarget(t: RoomToken, protocol: Protocol): ClientTarget {
  return protocol === 'yws'
    ? { url: t.url, dialect: 'yws', docName: '', token: '' }
    : { url: t.root, dialect: 'hocuspocus', docName: t.docName, token: t.token }
}

export interface Target {
  /** what the report names: the ws URL, or the api URL and assets */
  describe: string
  rooms: number
  /** a fresh token for a client of a room (signing keys: one user per client) */
  token(room: number, client: number): Promise<RoomToken>
}

/** Token lifetime minted with signing keys: long, and renewed in band anyway (a soak outlives it). */
const SIGNED_TTL_SEC = 600

export async function signingTarget(
  t: Extract<TargetOptions, { kind: 'signing' }>,
  rooms: number,
  keys?: KeyRing,
): Promise<Target> {
  const ring = keys ?? (await loadKeyRing('', t.signingKeys))
  return {
    describe: `${t.wsUrl} (org ${t.org}, documents ${t.docPrefix}-0..${rooms - 1})`,
    rooms,
    async token(room, client) {
      const doc = `${t.docPrefix}-${room}`
      const { token, expiresAtMs } = await mintToken(ring, {
        org: t.org,
        doc,
        sub: `loadtest-${client}@tandem.local`,
        acc: 'rw',
        ttlSec: SIGNED_TTL_SEC,
      })
      return {
        url: `${t.wsUrl}/${encodeURIComponent(t.org)}/${encodeURIComponent(doc)}?yauth=${encodeURIComponent(token)}`,
        root: t.wsUrl,
        docName: `${t.org}/${doc}`,
        token,
        expiresAtMs,
      }
    },
  }
}

/** The generic_doc assets to load: those named, or those of the workspace the key may edit. */
export async function apiAssets(
  client: TandemClient,
  t: Extract<TargetOptions, { kind: 'api' }>,
  rooms: number,
): Promise<string[]> {
  if (t.assets) return t.assets.slice(0, rooms)
  const { assets } = await client.workspaceAssets(t.workspace!)
  const docs = assets.filter((a) => a.type === 'generic_doc' && a.access === 'edit').map((a) => a.id)
  if (!docs.length) throw new Error(`workspace ${t.workspace} has no generic_doc asset this key may edit`)
  return docs.slice(0, rooms)
}

export function apiTarget(
  t: Extract<TargetOptions, { kind: 'api' }>,
  assets: string[],
  fetchFn?: typeof fetch,
): Target {
  const client = new TandemClient({ baseUrl: t.apiUrl, apiKey: t.apiKey, ...(fetchFn ? { fetch: fetchFn } : {}) })
  // One token per asset, shared by its clients while it is in the first half of its life; a
  // renewal (due at four fifths of it) always mints, and the room's other renewals share that one.
  const minted = new Map<number, { at: number; token: Promise<CollabToken> }>()
  const fresh = (room: number) => {
    const token = client.collabToken(assets[room]!, { access: 'edit' })
    minted.set(room, { at: Date.now(), token })
    token.catch(() => minted.delete(room))
    return token
  }
  const current = async (room: number): Promise<CollabToken> => {
    const m = minted.get(room)
    if (!m) return fresh(room)
    const c = await m.token
    return c.expires_at_ms - Date.now() > (c.expires_at_ms - m.at) / 2
      ? c
      : minted.get(room) === m
        ? fresh(room)
        : current(room)
  }
  return {
    describe: `${t.apiUrl} (assets ${assets.join(', ')})`,
    rooms: assets.length,
    async token(room) {
      const c = await current(room)
      return {
        url: `${c.ws_url}/${encodeURIComponent(c.org)}/${encodeURIComponent(c.doc_id)}?yauth=${encodeURIComponent(c.token)}`,
        root: c.ws_url,
        docName: `${c.org}/${c.doc_id}`,
        token: c.token,
        expiresAtMs: c.expires_at_ms,
      }
    },
  }
}
