// The real @hocuspocus/provider in Node against a Tandem server: sockets on the collab listener's
// root URL (with `ws` as the WebSocket), providers attached to them, and waits on their events.
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import WebSocket from 'ws'
import * as Y from 'yjs'

export interface HocusClients {
  socket(url: string): HocuspocusProviderWebsocket
  /**
   * A provider for `name` on `socket`, attached; `token` may be a function (called on every auth).
   * `sessionAwareness`: the provider's option (several providers of one document on one socket).
   */
  provider(
    socket: HocuspocusProviderWebsocket,
    name: string,
    token: string | (() => Promise<string>),
    doc?: Y.Doc,
    o?: { sessionAwareness?: boolean },
  ): HocuspocusProvider
  destroy(): void
}

export function hocusClients(): HocusClients {
  const sockets: HocuspocusProviderWebsocket[] = []
  const providers: HocuspocusProvider[] = []
  return {
    socket(url) {
      const s = new HocuspocusProviderWebsocket({
        url,
        WebSocketPolyfill: WebSocket,
        delay: 100,
        minDelay: 100,
        maxDelay: 500,
        factor: 1,
      })
      sockets.push(s)
      return s
    },
    provider(socket, name, token, doc = new Y.Doc(), o = {}) {
      const p = new HocuspocusProvider({
        websocketProvider: socket,
        name,
        token,
        document: doc,
        sessionAwareness: o.sessionAwareness ?? false,
      })
      p.attach()
      providers.push(p)
      return p
    },
    destroy() {
      for (const p of providers.splice(0)) p.destroy()
      for (const s of sockets.splice(0)) s.destroy()
    },
  }
}

/** Resolves with the scope once the provider is authenticated, rejects with the reason it was refused. */
export function authenticated(p: HocuspocusProvider): Promise<string> {
  if (p.isAuthenticated && p.authorizedScope) return Promise.resolve(p.authorizedScope)
  return new Promise((resolve, reject) => {
    p.on('authenticated', ({ scope }: { scope: string }) => resolve(scope))
    p.on('authenticationFailed', ({ reason }: { reason: string }) => reject(new Error(reason)))
  })
}

/** Resolves with the reason of the next refusal of the provider. */
export function refused(p: HocuspocusProvider): Promise<string> {
  return new Promise((resolve) => p.on('authenticationFailed', ({ reason }: { reason: string }) => resolve(reason)))
}
