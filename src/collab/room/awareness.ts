// A room's awareness (cursors, names). Each client's state is kept as the entry it arrived in
// (presence-states.ts) and changes go out coalesced: one frame per window per room (presence-
// window.ts) with the latest entry of each changed client, built once by concatenation and
// published to every peer, the sender too (its own echo keeps a quiet provider from timing out).
// Cost grows with the changes and the observers, not with their product of parsed states.
// A frame is checked whole before anything is taken: it must parse, its states fit the bound,
// its client ids be the sender's own (not another user's: no spoofed cursors), and the socket
// stay within its budget; otherwise it is refused and nothing of it is relayed.
import type { Config } from '../../infra/config.js'
import { AppError } from '../../infra/errors.js'
import {
  checkState,
  joinEntries,
  kept,
  readAwarenessEntries,
  StateTooLarge,
  type AwarenessEntry,
} from '@tandem/protocol/awareness-entries'
import { encodeAwareness } from '@tandem/protocol/messages'
import { Peer } from '../peer.js'
import { PresenceStates, type Owner } from './presence-states.js'
import { PresenceWindow } from './presence-window.js'

export interface PresenceSettings {
  /** the coalescing window's first step and its bound (ms; presence-window.ts) */
  windowMinMs: number
  windowMaxMs: number
  /** largest state (bytes of JSON) */
  maxStateBytes: number
  /** awareness entries one socket may send per second on average, and at once (0: no limit) */
  perSec: number
  burst: number
}

const PRESENCE_DEFAULTS: PresenceSettings = {
  windowMinMs: 5,
  windowMaxMs: 50,
  maxStateBytes: 64 * 1024,
  perSec: 60,
  burst: 300,
}

/** What the settings (awareness-*) say of every room's awareness. */
export function presenceSettings(c: Config): PresenceSettings {
  return {
    windowMinMs: c.awarenessWindowMinMs,
    windowMaxMs: c.awarenessWindowMs,
    maxStateBytes: c.awarenessMaxStateBytes,
    perSec: c.awarenessPerSec,
    burst: c.awarenessBurst,
  }
}

/** y-protocols' outdated timeout: a state not renewed within it is removed, here as in every client */
const OUTDATED_MS = 30_000
/** timeouts are swept at most this often (one timer per room) */
const SWEEP_MIN_MS = 1000

/** Another node of the cluster, as the owner of the states it relayed. */
class RemoteNode {
  constructor(readonly node: string) {}
}

/** One socket's awareness allowance (token bucket). */
interface Budget {
  tokens: number
  at: number
}

export class RoomAwareness {
  private readonly states: PresenceStates
  private readonly window: PresenceWindow
  /** the latest entry of each client changed since the last frame, and those of ours for the bus */
  private readonly pending = new Map<number, Uint8Array>()
  private readonly pendingBus = new Map<number, Uint8Array>()
  private readonly nodes = new Map<string, RemoteNode>()
  private readonly budgets = new WeakMap<Peer, Budget>()
  private bus: ((update: Uint8Array) => void) | null = null
  private snapshot: Uint8Array | null = null
  private timer: NodeJS.Timeout | null = null
  private closed = false

  constructor(
    private readonly publish: (frame: Uint8Array) => void,
    private readonly s: PresenceSettings = PRESENCE_DEFAULTS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.states = new PresenceStates(now)
    this.window = new PresenceWindow({ minMs: s.windowMinMs, maxMs: s.windowMaxMs }, () => this.flush())
  }

  /**
   * An awareness update from a peer's socket: taken whole, or refused whole (AppError). Entries
   * not newer than what the room holds are dropped unread: a stock provider sends back every
   * state it is sent, so most entries a busy room receives are such echoes.
   */
  receive(peer: Peer, update: Uint8Array): void {
    const entries = this.newer(this.read(update, 'malformed_message'), 'malformed_message')
    for (const e of entries) {
      const owner = this.states.ownerOf(e.clientId)
      if (owner !== undefined && owner !== peer && !mayTakeOver(peer, owner)) {
        throw new AppError('malformed_message', `awareness client ${e.clientId} belongs to another user`)
      }
    }
    this.charge(peer, entries.length)
    for (const e of entries) this.take(kept(e), peer)
  }

  /** A REST caller's awareness update: its clients belong to no socket and go when they stop renewing. */
  receiveRest(update: Uint8Array): void {
    const entries = this.newer(this.read(update, 'bad_request'), 'bad_request')
    for (const e of entries) {
      if (this.states.ownerOf(e.clientId) instanceof Peer)
        throw new AppError('forbidden', `awareness client ${e.clientId} belongs to a connected client`)
    }
    for (const e of entries) this.take(kept(e), 'rest')
  }

  /** The peer left: the states it introduced go, for everyone. */
  forget(peer: Peer): void {
    if (!peer.hasAwareness) return
    for (const id of peer.awarenessIds)
      if (this.states.ownerOf(id) === peer) this.changed(this.states.remove(id)!, true)
    peer.awarenessIds.clear()
  }

  /** A document update goes to every peer now: pending changes go with it (one write per socket for both). */
  flushWithBroadcast(): void {
    this.window.now()
  }

  /** Every live state, as one update (each entry as received), or null when none. */
  encodeAll(): Uint8Array | null {
    if (this.states.size === 0) return null
    return (this.snapshot ??= joinEntries(this.states.entries(), this.states.size))
  }

  // ---- the cluster (src/cluster/room-link.ts) ------------------------------------------------

  /** Where this node's own changes go, one update per window (the bus), or null to stop. */
  relayTo(bus: ((update: Uint8Array) => void) | null): void {
    this.bus = bus
    this.pendingBus.clear()
  }

  /** Another node's awareness update: taken for this node's sockets, never relayed back. */
  applyRemote(node: string, update: Uint8Array): { added: number[]; updated: number[]; removed: number[] } {
    const change = { added: [] as number[], updated: [] as number[], removed: [] as number[] }
    let entries: AwarenessEntry[]
    try {
      entries = readAwarenessEntries(update)
    } catch {
      return change // the sending node checked it; a garbled bus message is dropped
    }
    let owner = this.nodes.get(node)
    if (!owner) this.nodes.set(node, (owner = new RemoteNode(node)))
    for (const e of entries) {
      if (this.take(kept(e), owner)) (e.removed ? change.removed : change.updated).push(e.clientId)
      else if (e.removed) change.removed.push(e.clientId)
    }
    return change
  }

  /** A node's heartbeat lapsed: the states it relayed go, for this node's sockets. */
  dropRemote(node: string, ids: number[]): void {
    const owner = this.nodes.get(node)
    if (!owner) return
    for (const id of ids) if (this.states.ownerOf(id) === owner) this.changed(this.states.remove(id)!, false)
  }

  /** The states this node's clients and REST callers hold, as one update (another node asked), or null. */
  encodeLocal(): Uint8Array | null {
    const mine = (o: Owner) => !(o instanceof RemoteNode)
    const ids = this.states.idsOf(mine)
    return joinEntries(this.states.entries(mine), ids.length)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.window.close()
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  // ---- inside --------------------------------------------------------------------------------

  private read(update: Uint8Array, code: 'malformed_message' | 'bad_request'): AwarenessEntry[] {
    try {
      return readAwarenessEntries(update, this.s.maxStateBytes)
    } catch (err) {
      throw new AppError(code, err instanceof StateTooLarge ? err.message : 'invalid awareness update')
    }
  }

  /** The entries the room would take, each state checked to be JSON (once, on receipt). */
  private newer(entries: AwarenessEntry[], code: 'malformed_message' | 'bad_request'): AwarenessEntry[] {
    const out = entries.filter((e) => this.states.takes(e))
    try {
      for (const e of out) checkState(e)
    } catch {
      throw new AppError(code, 'invalid awareness update: a state is not JSON')
    }
    return out
  }

  /** Charges `n` entries to the peer's allowance; over it the frame is refused (1008). */
  private charge(peer: Peer, n: number): void {
    if (this.s.perSec <= 0) return
    const t = this.now()
    let b = this.budgets.get(peer)
    if (!b) this.budgets.set(peer, (b = { tokens: this.s.burst, at: t }))
    else {
      b.tokens = Math.min(this.s.burst, b.tokens + ((t - b.at) / 1000) * this.s.perSec)
      b.at = t
    }
    if (b.tokens < n) throw new AppError('rate_limited', `awareness rate limit: over ${this.s.perSec} updates/s`)
    b.tokens -= n
  }

  /** Takes one entry from `owner`; returns whether it changed anything. */
  private take(e: AwarenessEntry, owner: Owner): boolean {
    const { relay, was } = this.states.apply(e, owner)
    if (was instanceof Peer && was !== owner) was.awarenessIds.delete(e.clientId)
    if (owner instanceof Peer) {
      if (!e.removed) owner.awarenessIds.add(e.clientId)
      else if (owner.hasAwareness) owner.awarenessIds.delete(e.clientId)
    }
    if (relay) this.changed(e, !(owner instanceof RemoteNode))
    return relay
  }

  /** `e` goes out in the next frame (and to the bus when it is ours). */
  private changed(e: AwarenessEntry, ours: boolean): void {
    if (this.closed) return
    this.snapshot = null
    this.pending.set(e.clientId, e.bytes)
    if (ours && this.bus) this.pendingBus.set(e.clientId, e.bytes)
    this.window.changed()
    this.arm()
  }

  private flush(): void {
    const frame = joinEntries(this.pending.values(), this.pending.size)
    this.pending.clear()
    if (frame) this.publish(encodeAwareness(frame))
    const bus = joinEntries(this.pendingBus.values(), this.pendingBus.size)
    this.pendingBus.clear()
    if (bus && this.bus) this.bus(bus)
  }

  /** One timer per room, due when the oldest state would time out. */
  private arm(): void {
    if (this.timer || this.closed) return
    const oldest = this.states.oldest()
    if (oldest === undefined) return
    // not unref'd: a room's close clears it, and a test proves nothing is left behind
    this.timer = setTimeout(this.sweep, Math.max(SWEEP_MIN_MS, oldest + OUTDATED_MS - this.now()))
  }

  private readonly sweep = (): void => {
    this.timer = null
    this.states.expire(this.now() - OUTDATED_MS, (e, owner) => {
      if (owner instanceof Peer) owner.awarenessIds.delete(e.clientId)
      this.changed(e, !(owner instanceof RemoteNode))
    })
    this.arm()
  }
}

/** The same user may take over a client id from another of its sockets (a reconnect), or from another node. */
function mayTakeOver(peer: Peer, owner: Owner): boolean {
  return owner instanceof RemoteNode || (owner instanceof Peer && owner.cap.sub === peer.cap.sub)
}
