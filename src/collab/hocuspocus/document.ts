// One document on a Hocuspocus socket: authenticated with its own capability token, then a peer of
// its room like a y-websocket socket (the room sees a DocChannel). Frames that come while its token
// is being checked are held, bounded, and replayed in order once it has joined. A refusal ends this
// document only (PermissionDenied with a reason); the socket and its other documents carry on.
// Updates are acknowledged with SyncStatus once their write cycle is durable. Before its token
// expires the provider is asked for a fresh one, so a live document never leaves its room (no
// presence flicker, no held frames); expiry itself stays the fallback.
import { admitToDocument } from '../../auth/admission.js'
import { TokenRefused, refusalKind, verifyToken, type Capability } from '../../auth/capability.js'
import { isAppError, publicMessage } from '../../infra/errors.js'
import { CLOSE } from '../../protocol/close-codes.js'
import {
  encodeAuthenticated,
  encodeHocusPermissionDenied,
  encodeName,
  encodeStateless,
  encodeSyncStatus,
  encodeTokenRequest,
  type HocusMessage,
  type HocusScope,
} from '../../protocol/hocuspocus.js'
import { ProtocolError } from '../../protocol/messages.js'
import type { ConnectionDeps } from '../connection.js'
import type { Expiring } from '../expiry-clock.js'
import { Peer } from '../peer.js'
import type { RoomHold } from '../registry.js'
import { enforceOn } from '../revocation-enforcer.js'
import type { Room } from '../room/room.js'
import { isPrefixed, type PeerSocket } from '../transport.js'
import { DocChannel } from './channel.js'

export type HocusDeps = ConnectionDeps & {
  config: ConnectionDeps['config'] & {
    maxConnectionsPerRoom: number
    maxMessageBytes: number
    hocuspocusStatelessMaxBytes: number
    hocuspocusReauthSec: number
  }
}

/** What a document needs of its socket. */
export interface SocketSide {
  readonly base: PeerSocket
  /** the client's address, for the logs */
  readonly ip: string
  /** closes the whole socket (shutdown, drain, slow consumer) */
  closeSocket(code: number, reason: string): void
  /** a document of this socket was admitted (the unauthenticated bounds no longer apply) */
  admitted(): void
  /** a refused token, charged to the client's address like a refused upgrade */
  authFailed(): void
  /** this document is gone from the socket */
  removed(name: string): void
}

/** What a held frame costs besides its bytes, so tiny frames count. */
const FRAME_OVERHEAD_BYTES = 64
/** How long before its token expires a document asks for a fresh one; at most half the time left. */
const RENEW_LEAD_SEC = 30
/** Codes that concern the socket, not one document: every document on it goes. */
const SOCKET_CODES = new Set<number>([CLOSE.goingAway, CLOSE.internalError, CLOSE.serviceRestart, CLOSE.tryAgainLater])

type State =
  | { kind: 'waiting' } // for a token's check (first or after expiry)
  /**
   * `answered`: the answer to the provider's sync step 1 is out. The provider counts as synced
   * at its step 2 or once no change of its own is unconfirmed, so no SyncStatus may overtake a
   * large (paced) answer.
   */
  | { kind: 'open'; room: Room; peer: Peer; channel: DocChannel; answered: Promise<void> }
  | { kind: 'ended' }

const scopeOf = (cap: Capability): HocusScope => (cap.acc === 'rw' ? 'read-write' : 'readonly')

export class HocusDocument {
  readonly prefix: Uint8Array
  private state: State = { kind: 'waiting' }
  private held: { message: HocusMessage; size: number }[] = []
  private heldBytes = 0
  /** a newer Auth supersedes a check still in flight */
  private attempt = 0
  private reauthTimer: NodeJS.Timeout | null = null
  /** the second the early token request is due on the expiry clock (null: none pending) */
  private renewAt: number | null = null
  private readonly renewal: Expiring = { expired: () => this.askForToken() }

  constructor(
    readonly name: string,
    private readonly org: string,
    private readonly doc: string,
    private readonly s: SocketSide,
    private readonly d: HocusDeps,
  ) {
    this.prefix = encodeName(name)
  }

  auth(token: string): void {
    if (this.state.kind === 'open') void this.refresh(token, this.state)
    else if (this.state.kind === 'waiting') void this.admit(token)
  }

  /** A decoded frame for this document (not Auth), `size` its length on the wire. */
  message(message: HocusMessage, size: number): void {
    const st = this.state
    if (st.kind === 'waiting') {
      this.heldBytes += size + FRAME_OVERHEAD_BYTES
      if (this.heldBytes > 2 * this.d.config.maxMessageBytes) return this.refuse('too many messages before the token was checked')
      this.held.push({ message, size })
      return
    }
    if (st.kind === 'ended') return
    this.d.metrics.messagesIn.inc({ type: `hocuspocus-${message.type}` })
    try {
      this.dispatch(message, st)
    } catch (err) {
      this.fail(err)
    }
  }

  /** The socket closed, or the provider detached the document: leave its room, answer nothing. */
  end(): void {
    this.leaveRoom()
    this.state = { kind: 'ended' }
    this.attempt++
    this.held = []
    this.clearReauth()
    this.clearRenewal()
  }

  private dispatch(m: HocusMessage, st: Extract<State, { kind: 'open' }>): void {
    const { room, peer } = st
    switch (m.type) {
      case 'sync-step1': {
        const answer = room.answerSyncStep1(peer, m.stateVector)
        st.answered = answer.catch(() => undefined)
        void answer.catch((e: unknown) => this.fail(e))
        break
      }
      case 'sync-step2':
      case 'sync-update':
        this.update(st, m.update)
        break
      case 'awareness':
        room.receiveAwareness(peer, m.update)
        break
      case 'query-awareness':
        room.sendAwarenessTo(peer)
        break
      case 'stateless':
        this.stateless(st, m.payload)
        break
      case 'close':
        this.end()
        this.s.removed(this.name)
        break
      case 'auth':
        break // taken by auth()
    }
  }

  /** SyncStatus(true) once the update is durable; a read-only peer hears true only for what the document already holds. */
  private update(st: Extract<State, { kind: 'open' }>, update: Uint8Array): void {
    const { room, peer } = st
    const status = (saved: boolean) =>
      void st.answered.then(() => {
        if (this.state === st && !peer.closed) this.s.base.send(encodeSyncStatus(this.prefix, saved))
      })
    if (!peer.canWrite) {
      if (!room.contains(update)) return status(false)
      void room.flushed().then(() => status(true), (e: unknown) => this.fail(e))
      return
    }
    room.receiveAcked(peer, update, { resolve: () => status(true), reject: (e: unknown) => this.fail(e) })
  }

  /** Relayed as it came to the document's other Hocuspocus peers (y-websocket has no such message). */
  private stateless({ room, peer }: Extract<State, { kind: 'open' }>, payload: string): void {
    if (!peer.canWrite) {
      this.s.base.send(encodeHocusPermissionDenied(this.prefix, 'read-only: stateless messages need a read-write token'))
      return
    }
    const max = this.d.config.hocuspocusStatelessMaxBytes
    if (Buffer.byteLength(payload) > max) {
      this.s.base.send(encodeHocusPermissionDenied(this.prefix, `stateless message over ${max} bytes`))
      return
    }
    // behind each receiver's own name: with sessionAwareness, one document has several
    const frames = new Map<string, Uint8Array>()
    for (const other of room.peers) {
      if (other === peer || other.closed || !isPrefixed(other.socket)) continue
      const { name, prefix, base } = other.socket
      let frame = frames.get(name)
      if (!frame) frames.set(name, (frame = encodeStateless(prefix, payload)))
      base.send(frame)
    }
  }

  // ---- admission -----------------------------------------------------------------------------

  private async admit(token: string): Promise<void> {
    const attempt = ++this.attempt
    let hold: RoomHold | null = null
    try {
      const verified = await verifyToken(this.d.keys, token, this.d.now(), this.d.config.tokenClockSkewSec)
      if (attempt !== this.attempt) return
      const cap = admitToDocument(this.d, verified, this.org, this.doc)
      hold = await this.d.registry.acquire({ org: this.org, doc: this.doc, branch: cap.branch }, cap.sub)
      if (attempt !== this.attempt) return hold.release()
      // A delete that landed while the room loaded.
      this.d.deleted.check(this.org, this.doc)
      if (hold.room.destroyed) throw new ProtocolError('server shutting down')
      if (hold.room.peers.size >= this.d.config.maxConnectionsPerRoom) throw new ProtocolError('room is full')
      this.join(hold, cap)
    } catch (err) {
      hold?.release()
      if (attempt !== this.attempt) return
      this.noteRefusal(err)
      this.refuse(reasonOf(err))
    }
  }

  private join(hold: RoomHold, cap: Capability): void {
    this.clearReauth()
    const room = hold.room
    const channel: DocChannel = new DocChannel(this.s.base, this.name, this.prefix, {
      scope: (): HocusScope => scopeOf(peer.cap),
      ended: (code, reason) => this.ended(channel, code, reason),
    })
    const peer: Peer = new Peer(channel, cap)
    this.state = { kind: 'open', room, peer, channel, answered: Promise.resolve() }
    this.s.base.send(encodeAuthenticated(this.prefix, scopeOf(cap)))
    room.join(peer)
    hold.release()
    this.s.admitted()
    // A revocation that landed between the check and this join.
    if (!enforceOn(this.d.revocations, peer, this.d.metrics)) return
    peer.armExpiry(this.d.expiry)
    this.scheduleRenewal(cap.exp)
    const held = this.held
    this.held = []
    this.heldBytes = 0
    for (const { message, size } of held) this.message(message, size)
  }

  /** A fresh token for a joined document replaces its capability; a refused one leaves the current in place. */
  private async refresh(token: string, st: Extract<State, { kind: 'open' }>): Promise<void> {
    try {
      const verified = await verifyToken(this.d.keys, token, this.d.now(), this.d.config.tokenClockSkewSec)
      if (this.state !== st) return
      const cap = admitToDocument(this.d, verified, this.org, this.doc)
      if (cap.branch !== st.peer.cap.branch) throw new ProtocolError('token is for another branch')
      // A token that lives no longer than the current one (a provider's cached token) is not asked
      // for again: expiry takes over.
      const later = cap.exp > st.peer.cap.exp
      st.peer.cap = cap
      st.peer.armExpiry(this.d.expiry)
      if (later) this.scheduleRenewal(cap.exp)
      this.s.base.send(encodeAuthenticated(this.prefix, scopeOf(cap)))
    } catch (err) {
      if (this.state !== st) return
      this.noteRefusal(err)
      this.s.base.send(encodeHocusPermissionDenied(this.prefix, `token refresh refused: ${reasonOf(err)}`))
    }
  }

  /**
   * The room, the expiry clock or the deny-list closed this document's peer. Expiry (and a
   * revocation, which closes as expiry does) asks the provider for a fresh token and keeps the
   * document, its frames held meanwhile; what concerns the socket closes it; the rest ends this
   * document.
   */
  private ended(channel: DocChannel, code: number, reason: string): void {
    const st = this.state
    if (st.kind !== 'open' || st.channel !== channel) return
    this.leaveRoom()
    if (SOCKET_CODES.has(code)) {
      this.state = { kind: 'ended' }
      this.s.closeSocket(code, reason)
    } else if (code === CLOSE.tokenExpired) {
      this.state = { kind: 'waiting' }
      this.s.base.send(encodeTokenRequest(this.prefix))
      this.reauthTimer = setTimeout(() => this.refuse(reason), this.d.config.hocuspocusReauthSec * 1000)
      this.reauthTimer.unref()
    } else {
      this.refuse(reason)
    }
  }

  private leaveRoom(): void {
    const st = this.state
    if (st.kind !== 'open') return
    this.state = { kind: 'waiting' }
    st.channel.closed = true
    st.peer.closed = true
    st.peer.clearExpiry()
    this.clearRenewal()
    st.room.leave(st.peer)
    this.d.registry.maybeScheduleUnload(st.room)
  }

  /** Asks for a fresh token RENEW_LEAD_SEC (or half the time left) before `exp`; none under 2 s left. */
  private scheduleRenewal(exp: number): void {
    this.clearRenewal()
    const left = exp - this.d.now() / 1000
    if (left < 2) return
    this.renewAt = Math.ceil(exp - Math.min(RENEW_LEAD_SEC, left / 2))
    this.d.expiry.add(this.renewal, this.renewAt)
  }

  private clearRenewal(): void {
    if (this.renewAt !== null) this.d.expiry.remove(this.renewal, this.renewAt)
    this.renewAt = null
  }

  /** The provider answers with Auth, which refresh() takes while the document stays joined. */
  private askForToken(): void {
    this.renewAt = null
    if (this.state.kind === 'open') this.s.base.send(encodeTokenRequest(this.prefix))
  }

  private clearReauth(): void {
    if (this.reauthTimer) clearTimeout(this.reauthTimer)
    this.reauthTimer = null
  }

  /** Ends this document with PermissionDenied and a reason; the socket carries on. */
  private refuse(reason: string): void {
    if (this.state.kind === 'ended') return
    this.d.log.debug({ ip: this.s.ip, protocol: 'hocuspocus', doc: this.name, reason }, 'document refused')
    this.end()
    this.s.base.send(encodeHocusPermissionDenied(this.prefix, reason))
    this.s.removed(this.name)
  }

  private fail(err: unknown): void {
    if (this.state.kind === 'ended') return
    if (!(err instanceof ProtocolError) && !isAppError(err)) this.d.log.error({ err, doc: this.name }, 'hocuspocus message failed')
    this.refuse(reasonOf(err))
  }

  private noteRefusal(err: unknown): void {
    if (err instanceof TokenRefused) {
      this.d.metrics.authRefusals.inc({ where: 'hocuspocus', reason: refusalKind(err) })
      this.d.log.info({ ip: this.s.ip, protocol: 'hocuspocus', doc: this.name, reason: err.reason }, 'document refused: token')
      this.s.authFailed()
    } else if (!isAppError(err) && !(err instanceof ProtocolError)) this.d.log.error({ err, doc: this.name }, 'hocuspocus admission failed')
  }
}

/** As terse as the upgrade's close reasons ("token expired", "document deleted"). */
function reasonOf(err: unknown): string {
  if (err instanceof TokenRefused) return `token ${err.message}`
  if (err instanceof ProtocolError) return err.message
  return publicMessage(err).slice(0, 200)
}
