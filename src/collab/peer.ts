// One connected editor: its socket, its (refreshable) capability and the awareness client ids it
// introduced, so they can be removed for everyone when it leaves.
import type { Capability } from '../auth/capability.js'
import type { PeerSocket } from './transport.js'

export class Peer {
  /** made on the first awareness state this peer introduces: most sockets never need one */
  private awarenessSet: Set<number> | null = null
  closed = false
  deniedOnce = false
  private expiryTimer: NodeJS.Timeout | undefined

  constructor(
    readonly socket: PeerSocket,
    public cap: Capability,
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

  close(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.clearExpiry()
    this.socket.close(code, reason)
  }

  /** Arms the expiry timer for the current capability; `onExpire` runs when it passes. */
  armExpiry(nowMs: number, onExpire: () => void): void {
    this.clearExpiry()
    const delay = Math.max(0, this.cap.exp * 1000 - nowMs)
    // setTimeout caps at ~24.8 days; a token that long-lived is re-armed when it fires early.
    this.expiryTimer = setTimeout(() => {
      if (this.cap.exp * 1000 > Date.now() + 1000) this.armExpiry(Date.now(), onExpire)
      else onExpire()
    }, Math.min(delay, 2 ** 31 - 1))
    this.expiryTimer.unref()
  }

  clearExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer)
    this.expiryTimer = undefined
  }
}
