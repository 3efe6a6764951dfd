// One connected editor: its socket, its (refreshable) capability, how its protocol says what the
// room tells it (its read-only notices) and the awareness client ids it introduced, so they can be removed for
// everyone when it leaves.
import type { Capability } from '../auth/capability.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import type { ExpiryClock, Expiring } from './expiry-clock.js'
import type { PeerSocket, ReadOnlyNotices } from './transport.js'
import { Y_WEBSOCKET_READ_ONLY_NOTICES } from './y-websocket/read-only-notices.js'

export class Peer implements Expiring {
  /** made on the first awareness state this peer introduces: most sockets never need one */
  private awarenessSet: Set<number> | null = null
  closed = false
  deniedOnce = false
  /** the clock this peer's expiry is on, and the expiry second it was put there for */
  private expiry: ExpiryClock | null = null
  private armedExp = 0

  constructor(
    readonly socket: PeerSocket,
    public cap: Capability,
    /** a peer speaks y-websocket unless its codec gives other notices */
    private readonly readOnlyNotices: ReadOnlyNotices = Y_WEBSOCKET_READ_ONLY_NOTICES,
  ) {}

  /** Awareness client ids this peer introduced (empty until it sends awareness). */
  get awarenessIds(): Set<number> {
    return (this.awarenessSet ??= new Set())
  }

  get hasAwareness(): boolean {
    return this.awarenessSet !== null && this.awarenessSet.size > 0
  }

  get canWrite(): boolean {
    return this.cap.acc === 'rw'
  }

  send(bytes: Uint8Array): void {
    if (!this.closed) this.socket.send(bytes)
  }

  /** Tells the peer a write of its was refused: its capability is read-only. */
  writeRefused(): void {
    if (!this.closed) this.readOnlyNotices.writeRefused(this.socket, this.cap)
  }

  /**
   * Narrows a read-write capability to read-only from now on (the deny-list, the workspace's
   * approval rule) and tells the peer so; a read-only one is left as it is.
   */
  narrowToReadOnly(): void {
    if (this.cap.acc !== 'rw') return
    this.cap = { ...this.cap, acc: 'r' }
    if (!this.closed) this.readOnlyNotices.narrowed(this.socket, this.cap)
  }

  close(code: CloseCode, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.clearExpiry()
    this.socket.close(code, reason)
  }

  /** Puts this peer on `clock` for the current capability's expiry (replacing an earlier one). */
  armExpiry(clock: ExpiryClock): void {
    this.clearExpiry()
    this.expiry = clock
    this.armedExp = this.cap.exp
    clock.add(this, this.armedExp)
  }

  clearExpiry(): void {
    this.expiry?.remove(this, this.armedExp)
    this.expiry = null
  }

  expired(): void {
    this.expiry = null
    this.close(CLOSE.tokenExpired, 'token expired: refresh it or reconnect with a new one')
  }
}
