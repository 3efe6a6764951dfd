// One live document: a minted capability token, a Y.Doc and the stock y-websocket provider. The token
// is minted again before it expires (and sent on the open socket as an auth refresh, so the socket
// stays) and after a 4401 close or a refused reconnect, without reloading the page. A 4404 close
// (the document was deleted) is final: no reconnect, no renewal.
import * as encoding from 'lib0/encoding'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import type { Api, CollabToken } from '../api.js'
import { colorOf } from '../colors.js'

export type Status =
  | { kind: 'connecting' }
  | { kind: 'synced'; readOnly: boolean }
  | { kind: 'offline'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'deleted' }

const MESSAGE_AUTH = 2
const AUTH_REFRESH = 1
const CLOSE_TOKEN_EXPIRED = 4401
const CLOSE_DOC_DELETED = 4404

export interface CollabSession {
  ydoc: Y.Doc
  provider: WebsocketProvider
  token(): CollabToken
  readOnly: boolean
  /** REST URL of a collab route (`activity`, `changeset`, `rollback`, `versions` [/id]) with the current token. */
  restUrl(name: string, query?: Record<string, string | number>, id?: string): string
  onStatus(fn: (s: Status) => void): void
  onToken(fn: (t: CollabToken) => void): void
  destroy(): void
}

/** Mints a token (the requested access is a ceiling) and connects; resolves once the first token is in hand. */
export async function openSession(api: Api, assetId: string, access: 'edit' | 'view', user: string): Promise<CollabSession> {
  const mint = () => api.post<CollabToken>(`/assets/${encodeURIComponent(assetId)}/collab-token`, { access })
  let token = await mint()
  const ydoc = new Y.Doc()
  const provider = new WebsocketProvider(`${token.ws_url}/${encodeURIComponent(token.org)}`, token.doc_id, ydoc, {
    params: { yauth: token.token },
    // Tabs of one browser must not sync behind the server's back (a read-only tab would see local edits).
    disableBc: true,
  })
  provider.awareness.setLocalStateField('user', { name: user, color: colorOf(user) })

  const statusFns: ((s: Status) => void)[] = []
  const tokenFns: ((t: CollabToken) => void)[] = []
  let status: Status = { kind: 'connecting' }
  const setStatus = (s: Status) => {
    if (status.kind === 'deleted') return // final
    status = s
    for (const fn of statusFns) fn(s)
  }
  let destroyed = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let renewing: Promise<void> | null = null

  const schedule = () => {
    clearTimeout(timer)
    const left = token.expires_at_ms - Date.now()
    // Renew when a fifth of the lifetime is left (at most a minute early, at least five seconds: a
    // mint plus the in-band refresh must land before expiry even on a busy machine or network).
    const early = Math.min(60_000, Math.max(5_000, left / 5))
    timer = setTimeout(() => void renew(), Math.max(0, left - early))
  }

  const sendRefresh = () => {
    const ws = provider.ws
    if (!ws || ws.readyState !== WebSocket.OPEN) return
    const enc = encoding.createEncoder()
    encoding.writeVarUint(enc, MESSAGE_AUTH)
    encoding.writeVarUint(enc, AUTH_REFRESH)
    encoding.writeVarString(enc, token.token)
    ws.send(encoding.toUint8Array(enc))
  }

  // After a terminal close (4401) the provider stays down (shouldConnect false) until a renewal
  // succeeds and connects it again.
  const renew = (): Promise<void> => {
    renewing ??= (async () => {
      if (status.kind === 'deleted') return
      try {
        const next = await mint()
        if (destroyed) return
        token = next
        provider.params = { ...provider.params, yauth: token.token }
        sendRefresh()
        for (const fn of tokenFns) fn(token)
        schedule()
        if (!provider.shouldConnect) provider.connect()
      } catch (err) {
        const why = (err as Error).message
        setStatus({
          kind: 'error',
          message: !provider.shouldConnect
            ? `The collaboration token expired and a new one could not be minted (${why}); retrying in 3 s`
            : `Could not renew the collaboration token (${why}); retrying in 3 s`,
        })
        // Try again shortly; the socket may still be open on the old token.
        clearTimeout(timer)
        timer = setTimeout(() => void renew(), 3_000)
      } finally {
        renewing = null
      }
    })()
    return renewing
  }

  provider.on('status', ({ status: s }: { status: string }) => {
    if (s === 'connecting') setStatus({ kind: 'connecting' })
    else if (s === 'disconnected') setStatus({ kind: 'offline', reason: navigator.onLine ? 'the connection to the server was lost; reconnecting' : 'this browser is offline' })
  })
  provider.on('sync', (synced: boolean) => {
    if (synced) setStatus({ kind: 'synced', readOnly: token.access_type === 'r' })
  })
  provider.on('closed', (ev: { code: number; reason: string }) => {
    if (ev.code === CLOSE_DOC_DELETED) {
      clearTimeout(timer)
      setStatus({ kind: 'deleted' })
    } else if (ev.code === CLOSE_TOKEN_EXPIRED) {
      setStatus({ kind: 'offline', reason: 'the collaboration token expired; renewing it' })
      void renew()
    } else {
      setStatus({ kind: 'error', message: `The server closed the connection (${ev.code}${ev.reason ? `: ${ev.reason}` : ''}).` })
    }
  })
  // A reconnect with an expired token is refused before the upgrade (HTTP 401): renew first.
  provider.on('connection-close', () => {
    if (Date.now() >= token.expires_at_ms - 1_000) void renew()
  })
  const online = () => {
    if (status.kind === 'deleted') return
    // A socket that survived the outage is still synced; otherwise reconnect now, not after the backoff.
    if (provider.wsconnected && provider.synced) setStatus({ kind: 'synced', readOnly: token.access_type === 'r' })
    else provider.connect()
  }
  const offline = () => setStatus({ kind: 'offline', reason: 'this browser is offline' })
  window.addEventListener('online', online)
  window.addEventListener('offline', offline)
  schedule()

  return {
    ydoc,
    provider,
    token: () => token,
    get readOnly() {
      return token.access_type === 'r'
    },
    restUrl(name, query = {}, id) {
      const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])), yauth: token.token })
      const sub = id === undefined ? '' : `/${encodeURIComponent(id)}`
      return `${token.rest_url}/${name}/v1/${encodeURIComponent(token.org)}/${encodeURIComponent(token.doc_id)}${sub}?${q}`
    },
    onStatus(fn) {
      statusFns.push(fn)
      fn(status)
    },
    onToken(fn) {
      tokenFns.push(fn)
    },
    destroy() {
      destroyed = true
      clearTimeout(timer)
      window.removeEventListener('online', online)
      window.removeEventListener('offline', offline)
      provider.awareness.setLocalState(null)
      provider.destroy()
      ydoc.destroy()
    },
  }
}
