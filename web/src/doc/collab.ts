// One live document of the console: @tandem/client's openDocument (a minted token, the stock
// y-websocket provider, the token renewed in band before expiry and re-minted after a 4401) with
// the console's status line, presence and the browser's online/offline events on top. A 4404
// close (the document was deleted) is final: no reconnect, no renewal.
import type { DocumentRest, TandemError } from '@tandem/client'
import type { WebsocketProvider } from 'y-websocket'
import type * as Y from 'yjs'
import { said, type Api } from '../api.js'
import { colorOf } from '../colors.js'

export type Status =
  | { kind: 'connecting' }
  | { kind: 'synced'; readOnly: boolean }
  | { kind: 'offline'; reason: string }
  | { kind: 'error'; message: string }
  | { kind: 'deleted' }

const CLOSE_TOKEN_EXPIRED = 4401

export interface CollabSession {
  ydoc: Y.Doc
  provider: WebsocketProvider
  readOnly: boolean
  /** the document's collab REST routes (activity, changeset, rollback, versions) on the live token */
  rest: DocumentRest
  onStatus(fn: (s: Status) => void): void
  destroy(): void
}

const why = (e: TandemError) => (typeof e.detail === 'string' ? e.detail : e.message)

/** Mints a token (the requested access is a ceiling) and connects; resolves once the first token is in hand. */
export async function openSession(
  api: Api,
  assetId: string,
  access: 'edit' | 'view',
  user: string,
): Promise<CollabSession> {
  const live = await said(api.openDocument(assetId, { access }))
  const { provider } = live
  provider.awareness.setLocalStateField('user', { name: user, color: colorOf(user) })

  const statusFns: ((s: Status) => void)[] = []
  let status: Status = { kind: 'connecting' }
  const setStatus = (s: Status) => {
    if (status.kind === 'deleted') return // final
    status = s
    for (const fn of statusFns) fn(s)
  }
  const synced = () => setStatus({ kind: 'synced', readOnly: live.readOnly })

  provider.on('status', ({ status: s }: { status: string }) => {
    if (s === 'connecting') setStatus({ kind: 'connecting' })
    else if (s === 'disconnected')
      setStatus({
        kind: 'offline',
        reason: navigator.onLine ? 'the connection to the server was lost; reconnecting' : 'this browser is offline',
      })
  })
  provider.on('sync', (isSynced: boolean) => {
    if (isSynced) synced()
  })
  provider.on('closed', ({ code }: { code: number }) => {
    if (code === CLOSE_TOKEN_EXPIRED)
      setStatus({ kind: 'offline', reason: 'the collaboration token expired; renewing it' })
  })
  live.on('deleted', () => setStatus({ kind: 'deleted' }))
  live.on('unauthorized', (e) =>
    setStatus({ kind: 'error', message: `The collaboration token was refused (${why(e)}); reload to try again.` }),
  )
  live.on('closed', ({ code, reason }) =>
    setStatus({ kind: 'error', message: `The server closed the connection (${code}${reason ? `: ${reason}` : ''}).` }),
  )
  live.on('renewal-error', (e) =>
    setStatus({
      kind: 'error',
      message: !provider.shouldConnect
        ? `The collaboration token expired and a new one could not be minted (${why(e)}); retrying in 3 s`
        : `Could not renew the collaboration token (${why(e)}); retrying in 3 s`,
    }),
  )

  const online = () => {
    if (status.kind === 'deleted') return
    // A socket that survived the outage is still synced; otherwise reconnect now, not after the backoff.
    if (provider.wsconnected && provider.synced) synced()
    else if (provider.shouldConnect) provider.connect()
  }
  const offline = () => setStatus({ kind: 'offline', reason: 'this browser is offline' })
  window.addEventListener('online', online)
  window.addEventListener('offline', offline)

  return {
    ydoc: live.doc,
    provider,
    get readOnly() {
      return live.readOnly
    },
    rest: live.rest,
    onStatus(fn) {
      statusFns.push(fn)
      fn(status)
    },
    destroy() {
      window.removeEventListener('online', online)
      window.removeEventListener('offline', offline)
      provider.awareness.setLocalState(null)
      live.destroy()
      live.doc.destroy()
    },
  }
}
