// A live document: a minted capability token, a Y.Doc and the stock y-websocket provider. The token
// is renewed before it expires and sent on the open socket as an auth refresh ([2, 1, token]), so
// the socket outlives any token lifetime. A 4401 close gets one re-mint and reconnect; if that
// connection closes before the document synced again (a 4401, or an upgrade refused with 401), or
// a mint is refused with 401/403, the document stops with `unauthorized`.
// A 4404 close (or a mint answering 404) ends in `deleted`: no reconnect, no renewal.
import { ObservableV2 } from 'lib0/observable'
import { WebsocketProvider } from 'y-websocket'
import type { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
// The wire protocol's pure modules (no I/O): bundled into the package's build.
import { CLOSE } from '@tandem/protocol/close-codes'
import { encodeAuthRefresh } from '@tandem/protocol/messages'
import { DocumentRest } from './doc-rest.js'
import { TandemError } from './error.js'
import type { Fetch } from './http.js'
import type { CollabToken, CollabTokenOptions } from './types.js'

type ProviderOptions = NonNullable<ConstructorParameters<typeof WebsocketProvider>[3]>

export interface DocumentOptions {
  /** the document to sync into (a new one by default) */
  doc?: Y.Doc
  /** the ceiling asked for; the caller's permission may lower it to read-only (default `edit`) */
  access?: 'view' | 'edit'
  /** custom attributions stored with every update this document sends */
  attributions?: CollabTokenOptions['attributions']
  awareness?: Awareness
  /** a WebSocket class where there is no global one (Node 20: `import WebSocket from 'ws'`) */
  WebSocketPolyfill?: ProviderOptions['WebSocketPolyfill']
  /** sync tabs of one browser over BroadcastChannel too (default false: only through the server) */
  broadcastChannel?: boolean
}

export interface DocumentEvents {
  /** a new token is in force (renewed in band, or re-minted after a 4401) */
  token: (token: CollabToken) => void
  /** the token was refused again after a re-mint, or could not be minted (401/403): stopped */
  unauthorized: (error: TandemError) => void
  /** the document was deleted (4404): stopped */
  deleted: () => void
  /** a renewal failed for a reason that may pass (network, 503); retried in 3 s */
  'renewal-error': (error: TandemError) => void
  /** the server closed the socket for good with another code (4400, 4403, ...): stopped */
  closed: (event: { code: number; reason: string }) => void
}

export interface LiveDocument {
  doc: Y.Doc
  provider: WebsocketProvider
  /** the token in force now */
  token(): CollabToken
  readonly readOnly: boolean
  /** the document's collab REST routes (versions, history) with the live token */
  rest: DocumentRest
  /** resolves once the document first synced; rejects if it is deleted, refused or destroyed first */
  whenSynced(): Promise<void>
  /** returns a function that removes the listener */
  on<E extends keyof DocumentEvents>(event: E, fn: DocumentEvents[E]): () => void
  destroy(): void
}

/**
 * When to renew a token (ms from `now`): when a fifth of its lifetime is left, at most a minute early, at least five
 * seconds.
 */
export function renewDelayMs(expiresAtMs: number, now: number): number {
  const left = expiresAtMs - now
  return Math.max(0, left - Math.min(60_000, Math.max(5_000, left / 5)))
}

const RETRY_MS = 3_000
const OPEN = 1 // WebSocket.OPEN, without naming a global Node 20 lacks

export async function openDocument(
  mint: (access: 'view' | 'edit') => Promise<CollabToken>,
  fetchFn: Fetch,
  o: DocumentOptions = {},
): Promise<LiveDocument> {
  // Node 20 has no global WebSocket; say so before minting rather than fail inside the provider.
  if (!o.WebSocketPolyfill && typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function') {
    throw new TypeError("no WebSocket here: pass { WebSocketPolyfill } (Node 20: import WebSocket from 'ws')")
  }
  const access = o.access ?? 'edit'
  let token = await mint(access)
  const doc = o.doc ?? new Y.Doc()
  const provider = new WebsocketProvider(`${token.ws_url}/${encodeURIComponent(token.org)}`, token.doc_id, doc, {
    params: { yauth: token.token },
    disableBc: !o.broadcastChannel,
    ...(o.awareness ? { awareness: o.awareness } : {}),
    ...(o.WebSocketPolyfill ? { WebSocketPolyfill: o.WebSocketPolyfill } : {}),
  })
  const events = new ObservableV2<DocumentEvents>()
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let renewing: Promise<void> | null = null
  // Set by a 4401 close, cleared once the document syncs again: a second 4401 meanwhile is final.
  let remintedAfter4401 = false

  let resolveSynced!: () => void
  let rejectSynced!: (e: Error) => void
  const synced = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve
    rejectSynced = reject
  })
  synced.catch(() => {}) // a caller that never asks must not see an unhandled rejection

  const stop = () => {
    stopped = true
    clearTimeout(timer)
    provider.disconnect()
  }
  const unauthorized = (error: TandemError) => {
    if (stopped) return
    stop()
    rejectSynced(error)
    events.emit('unauthorized', [error])
  }
  const deleted = () => {
    if (stopped) return
    stop()
    rejectSynced(new TandemError(404, 'doc_deleted', 'document deleted'))
    events.emit('deleted', [])
  }

  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void renew(), renewDelayMs(token.expires_at_ms, Date.now()))
  }

  const renew = (): Promise<void> => {
    renewing ??= (async () => {
      try {
        const next = await mint(access)
        if (stopped) return
        token = next
        provider.params = { ...provider.params, yauth: token.token }
        const ws = provider.ws
        if (ws && ws.readyState === OPEN) ws.send(encodeAuthRefresh(token.token))
        events.emit('token', [token])
        schedule()
        // After a 4401 the provider stays down (shouldConnect false) until it is told to connect.
        if (!provider.shouldConnect) provider.connect()
      } catch (err) {
        if (stopped) return
        const e = err instanceof TandemError ? err : new TandemError(0, 'network', (err as Error).message)
        if (e.status === 404) return deleted()
        if (e.status === 401 || e.status === 403) return unauthorized(e)
        events.emit('renewal-error', [e])
        clearTimeout(timer)
        timer = setTimeout(() => void renew(), RETRY_MS)
      } finally {
        renewing = null
      }
    })()
    return renewing
  }

  provider.on('sync', (isSynced: boolean) => {
    if (!isSynced) return
    remintedAfter4401 = false
    resolveSynced()
  })
  provider.on('closed', ({ code, reason }: { code: number; reason: string }) => {
    if (stopped) return
    if (code === CLOSE.docDeleted) return deleted()
    if (code === CLOSE.tokenExpired) {
      if (remintedAfter4401)
        return unauthorized(new TandemError(401, 'token_refused', reason || 'token refused after a re-mint'))
      remintedAfter4401 = true
      void renew()
      return
    }
    stop()
    rejectSynced(new TandemError(0, `closed_${code}`, reason))
    events.emit('closed', [{ code, reason }])
  })
  // A refused upgrade (HTTP 401: a browser sees no status, only a close without our code).
  provider.on('connection-close', (event: { code: number } | null) => {
    if (stopped || event?.code === CLOSE.tokenExpired || event?.code === CLOSE.docDeleted) return
    // The connection after a re-mint failed before it synced: the new token is refused too.
    if (remintedAfter4401 && !renewing)
      return unauthorized(new TandemError(401, 'token_refused', 'the re-minted token was refused'))
    // A reconnect with an expired token is refused before the upgrade: renew first.
    if (Date.now() >= token.expires_at_ms - 1_000) void renew()
  })
  schedule()

  return {
    doc,
    provider,
    token: () => token,
    get readOnly() {
      return token.access_type === 'r'
    },
    rest: new DocumentRest(async () => token, fetchFn),
    whenSynced: () => synced,
    on(event, fn) {
      events.on(event, fn)
      return () => events.off(event, fn)
    },
    destroy() {
      if (!stopped) rejectSynced(new TandemError(0, 'destroyed', 'the document was closed'))
      stopped = true
      clearTimeout(timer)
      provider.destroy()
      // The provider leaves its awareness alive (a 3 s interval that keeps Node running): destroy
      // the one it made for us, never one the caller passed in.
      if (!o.awareness) provider.awareness.destroy()
      events.destroy()
    },
  }
}
