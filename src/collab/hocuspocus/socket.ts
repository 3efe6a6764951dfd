// A Hocuspocus socket (the collab listener's root URL): many documents, each named `{org}/{doc_id}`
// and authenticated with its own capability token, up to a per-socket limit. Until one document is
// admitted the socket is bounded in bytes, messages, documents and seconds (a socket that never
// authenticates must not hold the server's memory, cf. GHSA-xwhh-v746-pj9m); past a bound it is
// closed 1008 with the reason. A frame whose name cannot be read closes it 4400; anything else
// wrong is refused for its document alone.
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { decodeHocusFrame, encodeHocusPermissionDenied, encodeName } from '@tandem/protocol/hocuspocus'
import { ProtocolError } from '@tandem/protocol/messages'
import { splitHocusName } from '../doc-path.js'
import type { PeerSocket } from '../transport.js'
import { HocusDoc, type HocusDeps, type SocketSide } from './doc.js'

export type HocusSocketDeps = HocusDeps & {
  config: HocusDeps['config'] & {
    hocuspocusMaxDocs: number
    hocuspocusUnauthSec: number
    hocuspocusUnauthBytes: number
    hocuspocusUnauthMessages: number
  }
}

export class HocusSocket implements SocketSide {
  private readonly docs = new Map<string, HocusDoc>()
  private authenticated = false
  private unauthBytes = 0
  private unauthMessages = 0
  private unauthDocs = 0
  private closed = false
  private timer: NodeJS.Timeout | null

  constructor(
    readonly base: PeerSocket,
    private readonly d: HocusSocketDeps,
    /** the client's address (after trusted proxies), for the logs */
    readonly ip: string,
    /** charges a refused token to the client's address */
    private readonly onAuthFailed: () => void,
  ) {
    const sec = d.config.hocuspocusUnauthSec
    this.timer = setTimeout(
      () => this.closeSocket(CLOSE.policyViolation, `no document authenticated within ${sec} s`),
      sec * 1000,
    )
    this.timer.unref()
  }

  message(bytes: Uint8Array): void {
    if (this.closed) return
    if (!this.authenticated) {
      const c = this.d.config
      this.unauthBytes += bytes.length
      if (++this.unauthMessages > c.hocuspocusUnauthMessages)
        return this.closeSocket(
          CLOSE.policyViolation,
          `over ${c.hocuspocusUnauthMessages} messages before a document was authenticated`,
        )
      if (this.unauthBytes > c.hocuspocusUnauthBytes)
        return this.closeSocket(
          CLOSE.policyViolation,
          `over ${c.hocuspocusUnauthBytes} bytes before a document was authenticated`,
        )
    }
    let frame
    try {
      frame = decodeHocusFrame(bytes)
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err
      return this.closeSocket(CLOSE.malformed, `malformed frame: ${err.message}`)
    }
    if (frame.kind === 'keepalive') return
    const doc = this.docs.get(frame.name)
    if (frame.kind === 'bad') {
      doc?.session.end()
      this.docs.delete(frame.name)
      return this.deny(frame.name, `malformed message: ${frame.reason}`)
    }
    const { name, message } = frame
    if (doc) {
      if (message.type === 'auth') doc.session.auth(message.token)
      else doc.session.message(message, bytes.length)
      return
    }
    // The provider says CLOSE when it detaches, also after a refusal: nothing to answer.
    if (message.type === 'close') return
    if (message.type !== 'auth')
      return this.deny(name, 'not authenticated: send Auth with a token for this document first')
    this.open(name, message.token)
  }

  private open(name: string, token: string): void {
    const path = splitHocusName(name)
    if (!path) return this.deny(name, 'bad document name: expected {org}/{doc_id}')
    const max = this.d.config.hocuspocusMaxDocs
    if (!this.authenticated && ++this.unauthDocs > max)
      return this.closeSocket(CLOSE.policyViolation, `over ${max} documents before one was authenticated`)
    if (this.docs.size >= max) return this.deny(name, `too many documents on this socket (at most ${max})`)
    const doc = new HocusDoc(name, path.org, path.doc, this, this.d)
    this.docs.set(name, doc)
    doc.session.auth(token)
  }

  private deny(name: string, reason: string): void {
    this.base.send(encodeHocusPermissionDenied(encodeName(name), reason))
  }

  // ---- SocketSide ----------------------------------------------------------------------------

  admitted(): void {
    if (this.authenticated) return
    this.authenticated = true
    this.clearTimer()
  }

  authFailed(): void {
    this.onAuthFailed()
  }

  removed(name: string): void {
    this.docs.delete(name)
  }

  closeSocket(code: CloseCode, reason: string): void {
    if (this.closed) return
    if (code === CLOSE.policyViolation || code === CLOSE.malformed)
      this.d.log.info({ ip: this.ip, protocol: 'hocuspocus', code, reason }, 'hocuspocus socket closed')
    this.base.close(code, reason)
    this.close()
  }

  /** The socket closed (either side): every document leaves its room. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.clearTimer()
    for (const doc of this.docs.values()) doc.session.end()
    this.docs.clear()
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}
