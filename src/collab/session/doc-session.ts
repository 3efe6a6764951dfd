// One document on one socket, the same for both protocols (y-websocket: the socket's one document;
// Hocuspocus: one per document name on a socket). The protocol is a codec (codec.ts): it hands the
// session decoded messages and hears back what to tell its client. States:
//
//   admitting  the token is checked, the room loads; frames wait, in order and bounded
//   joined     a peer of its room: frames go to the room, an in-band token refreshes the capability
//   reauth     its token expired (or was revoked) and the client was asked for a fresh one; frames
//              wait, a fresh token admits it again (only a protocol that can ask: Hocuspocus)
//   ended      gone: nothing more is answered
//
// Admission, one order for both: verify → admitToDocument → acquire the room → deleted? shutting
// down? full? → join → the deny-list once more → the expiry clock. A failure maps through the
// error table (refusal.ts) to a close code and a reason; the codec closes its socket with them
// (y-websocket) or denies the document alone (Hocuspocus).
import { type Capability } from '../../auth/capability.js'
import { AppError, isAppError } from '../../infra/errors.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { Peer } from '../peer.js'
import type { RoomHold } from '../registry.js'
import { enforceOn } from '../revocation-enforcer.js'
import type { Room } from '../room/room.js'
import type { PeerSocket } from '../transport.js'
import type { Meaning, SessionCodec, SocketOwner } from './codec.js'
import { mayBeRuled, roomRefusal, ruled, verifyFor, type SessionDeps } from './session-admission.js'
import { HeldFrames } from './held-frames.js'
import { refusalOf, type Refusal } from './refusal.js'
import { Renewal } from './renewal.js'

export type SessionState = 'admitting' | 'joined' | 'reauth' | 'ended'

const RESOLVED = Promise.resolve()
const TOO_MANY_EARLY: Refusal = {
  code: CLOSE.policyViolation,
  reason: 'too many messages before the document was loaded',
}

export class DocSession implements SocketOwner {
  state: SessionState = 'admitting'
  private room: Room | null = null
  private peer: Peer | null = null
  /** frames waiting for the join (made on the first one: most sessions never hold any) */
  private held: HeldFrames<Meaning> | null = null
  /** the upgrade's room and capability, joined on the next turn or at the first frame */
  private ready: { hold: RoomHold; cap: Capability } | null = null
  /** a newer admission supersedes one still in flight */
  private attempt = 0
  /** the answer to the client's sync step 1 is out: no acknowledgement may overtake it */
  private answered: Promise<void> = RESOLVED
  /** early token requests and the wait after expiry (made on first use: only a protocol that can ask) */
  private renewal: Renewal | null = null

  constructor(
    private readonly codec: SessionCodec,
    private readonly d: SessionDeps,
    readonly org: string,
    readonly doc: string,
  ) {}

  // ---- admission -----------------------------------------------------------------------------

  /** The upgrade verified `cap` and holds the loaded room: joined on the next turn, or at the first frame. */
  admitHeld(hold: RoomHold, cap: Capability): void {
    this.ready = { hold, cap }
    // outside the upgrade's cork: the join's first sends go out on their own
    setImmediate(() => this.joinReady())
  }

  /** A capability checked outside (the y-websocket upgrade), or the refusal decided there. */
  admit(checked: Promise<{ cap: Capability } | Refusal>): void {
    void this.run(++this.attempt, checked)
  }

  /** A token in band: admits a session not joined (a newer one supersedes), refreshes a joined one. */
  auth(token: string): void {
    if (this.state === 'joined') void this.refresh(token, this.peer!)
    else if (this.state !== 'ended')
      void this.run(
        ++this.attempt,
        verifyFor(this.d, token, this.org, this.doc).then((cap) => ({ cap })),
      )
  }

  private async run(attempt: number, checked: Promise<{ cap: Capability } | Refusal>): Promise<void> {
    let hold: RoomHold | null = null
    try {
      const admitted = await checked
      if (attempt !== this.attempt) return
      if (!('cap' in admitted)) return this.refuse(admitted)
      const cap = await ruled(this.d, this.org, admitted.cap)
      if (attempt !== this.attempt) return
      hold = await this.d.registry.acquire({ org: this.org, doc: this.doc, branch: cap.branch }, cap.sub)
      if (attempt !== this.attempt) return hold.release()
      const h = hold
      hold = null
      this.enter(h, cap)
    } catch (err) {
      hold?.release()
      if (attempt !== this.attempt) return
      this.codec.admissionRefused(err)
      this.refuse(refusalOf(err))
    }
  }

  private joinReady(): void {
    const ready = this.ready
    if (!ready) return
    this.ready = null
    if (!mayBeRuled(this.d, ready.cap)) return this.enter(ready.hold, ready.cap)
    const attempt = this.attempt
    ruled(this.d, this.org, ready.cap).then(
      (cap) =>
        attempt === this.attempt && this.state !== 'ended' ? this.enter(ready.hold, cap) : ready.hold.release(),
      (err: unknown) => {
        ready.hold.release()
        this.codec.admissionRefused(err)
        this.refuse(refusalOf(err))
      },
    )
  }

  /** The room is held: a delete that landed meanwhile, shutdown and a full room refuse; else join. */
  private enter(hold: RoomHold, cap: Capability): void {
    let refusal: Refusal | null
    try {
      this.d.deleted.check(this.org, this.doc)
      refusal = roomRefusal(hold.room, this.d.config.maxConnectionsPerRoom)
    } catch (err) {
      this.codec.admissionRefused(err)
      refusal = refusalOf(err)
    }
    if (!refusal) return this.join(hold, cap)
    hold.release()
    this.refuse(refusal)
  }

  private join(hold: RoomHold, cap: Capability): void {
    this.renewal?.stopWaiting()
    const room = hold.room
    const peer = new Peer(this.codec.attach(this), cap, this.codec.readOnlyNotices)
    this.room = room
    this.peer = peer
    this.state = 'joined'
    this.answered = RESOLVED
    this.codec.joined(cap)
    room.join(peer)
    hold.release()
    // A revocation that landed between the check and this join.
    if (!enforceOn(this.d.revocations, peer, this.d.metrics)) return
    this.d.agents?.ruleAgainAfterJoin(peer, this.org)
    peer.armExpiry(this.d.expiry)
    if (this.codec.renewal) this.renewals().schedule(cap.exp)
    const held = this.held?.take()
    if (held) for (const { frame, size } of held) this.message(frame, size)
  }

  // ---- joined --------------------------------------------------------------------------------

  /** A decoded frame for this document (Hocuspocus Auth goes to auth()); `size` its length on the wire. */
  message(m: Meaning, size: number): void {
    if (this.state !== 'joined') {
      this.joinReady() // a frame before the upgrade's join turn joins first
      if ((this.state as SessionState) !== 'joined') return this.hold(m, size)
    }
    const room = this.room!
    const peer = this.peer!
    if (peer.closed) return
    this.d.metrics.messagesIn.inc({ type: this.codec.label(m) })
    try {
      switch (m.type) {
        case 'sync-step1': {
          const answer = room.answerSyncStep1(peer, m.stateVector)
          if (this.codec.synced) this.answered = answer.catch(() => undefined)
          void answer.catch((e: unknown) => this.fail(e))
          break
        }
        case 'sync-step2':
        case 'sync-update':
          if (this.codec.synced) this.acked(room, peer, m.update)
          else room.receiveUpdate(peer, m.update, m.type === 'sync-step2')
          break
        case 'awareness':
          room.receiveAwareness(peer, m.update)
          break
        case 'query-awareness':
          room.sendAwarenessTo(peer)
          break
        case 'auth':
        case 'auth-refresh':
          void this.refresh(m.token, peer)
          break
        case 'stateless':
          this.codec.stateless?.(room, peer, m.payload)
          break
        case 'close':
          this.end()
          this.codec.ended({ kind: 'detached' })
          break
      }
    } catch (err) {
      this.fail(err)
    }
  }

  private hold(m: Meaning, size: number): void {
    if (this.state === 'ended') return
    this.held ??= new HeldFrames(2 * this.d.config.maxMessageBytes)
    if (!this.held.push(m, size)) this.refuse(TOO_MANY_EARLY)
  }

  /**
   * An acknowledged update: `synced(true)` once durable; a read-only peer hears true only for what the document already
   * holds.
   */
  private acked(room: Room, peer: Peer, update: Uint8Array): void {
    const status = (saved: boolean) =>
      void this.answered.then(() => {
        if (this.peer === peer && !peer.closed) this.codec.synced!(saved)
      })
    if (!peer.canWrite) {
      if (!room.contains(update)) return status(false)
      room.flushed().then(
        () => status(true),
        (e: unknown) => this.fail(e),
      )
      return
    }
    room.receiveAcked(peer, update, { resolve: () => status(true), reject: (e: unknown) => this.fail(e) })
  }

  /**
   * A fresh token for the same document (and branch) replaces the capability; a refused one leaves the current in
   * place.
   */
  private async refresh(token: string, peer: Peer): Promise<void> {
    try {
      const cap = await verifyFor(this.d, token, this.org, this.doc)
      if (this.peer !== peer || peer.closed) return
      if (cap.branch !== peer.cap.branch) throw new AppError('forbidden', 'token is for another branch')
      // A token that lives no longer than the current one (a provider's cached token) is not asked
      // for again: expiry takes over.
      const later = cap.exp > peer.cap.exp
      peer.cap = cap
      peer.armExpiry(this.d.expiry)
      if (later && this.codec.renewal) this.renewals().schedule(cap.exp)
      this.codec.refreshed(cap)
    } catch (err) {
      if (this.peer !== peer || peer.closed) return
      this.codec.refreshRefused(err, refusalOf(err).reason)
    }
  }

  /**
   * The room, the expiry clock or the deny-list closed the peer's socket, when that socket is not
   * the connection itself (a Hocuspocus channel). Expiry (and revocation, which closes as expiry
   * does) waits for a fresh token when the protocol can ask for one; anything else ends the session.
   */
  peerClosed(socket: PeerSocket, code: CloseCode, reason: string): void {
    if (this.state !== 'joined' || this.peer!.socket !== socket) return
    if (code === CLOSE.tokenExpired && this.codec.renewal) return this.awaitToken(reason)
    this.end()
    this.codec.ended({ kind: 'closed', code, reason })
  }

  private awaitToken(reason: string): void {
    this.leaveRoom()
    this.state = 'reauth'
    this.codec.renewal!.ask()
    this.renewals().wait(this.codec.renewal!.waitSec, () => this.refuse({ code: CLOSE.tokenExpired, reason }))
  }

  private renewals(): Renewal {
    // the client answers an early request with a token, which refresh() takes while the document stays joined
    return (this.renewal ??= new Renewal(
      this.d.expiry,
      this.d.now,
      () => this.state === 'joined' && this.codec.renewal!.ask(),
    ))
  }

  // ---- ending --------------------------------------------------------------------------------

  private fail(err: unknown): void {
    if (this.state === 'ended' || (this.state === 'joined' && this.peer!.closed)) return
    if (!isAppError(err))
      this.d.log.error({ err, docId: this.room?.docId, protocol: this.codec.protocol }, 'collab message failed')
    this.refuse(refusalOf(err))
  }

  /** Ends the session and tells the client why. */
  private refuse(r: Refusal): void {
    if (this.state === 'ended') return
    this.end()
    this.codec.ended({ kind: 'refused', code: r.code, reason: r.reason })
  }

  /** Ends the session quietly (the socket closed, or the codec says so): leaves the room, answers nothing. */
  end(): void {
    if (this.state === 'ended') return
    this.leaveRoom()
    this.state = 'ended'
    this.attempt++
    this.held = null
    this.ready?.hold.release()
    this.ready = null
    this.renewal?.stopWaiting()
    this.renewal?.clear()
  }

  private leaveRoom(): void {
    const room = this.room
    const peer = this.peer
    if (!room || !peer) return
    this.room = null
    this.peer = null
    this.codec.detach(peer.socket)
    peer.closed = true
    peer.clearExpiry()
    this.renewal?.clear()
    room.leave(peer)
    this.d.registry.maybeScheduleUnload(room)
  }
}
