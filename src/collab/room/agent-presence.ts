// Agents in the room's awareness: one awareness client per agent session and document (never one
// per call), with the agent's name, `kind: "agent"` and its caret, sent as a REST caller's state
// would be (every live client hears it, on both protocols, and every node of a cluster). It stays
// while the agent works: each call renews it, and it goes a TTL after the last one, or at once when
// the agent says it is done. The room is held while an agent is in it, so its presence lasts the
// TTL even with nobody connected to this node.
//
// Clocks are the wall clock in ms (kept increasing): a session shown again after its room
// reloaded, or by another node, is newer than anything clients remember of the same client id,
// which a counter starting again at 1 would not be.
import * as encoding from 'lib0/encoding'
import type { AgentCaret, AgentState } from '@tandem/api/content'
import type { Logger } from '../../infra/log.js'
import type { DocRef } from '../doc-service.js'
import type { Room } from './room.js'

/** Who is shown: the session (an agent identity, and the session it names, if any) and its label. */
export interface AgentWho {
  /** the identity: the token's user and session; one awareness client per key and document */
  key: string
  name: string
  model?: string
}

export interface AgentRooms {
  /** the document's room, kept loaded until `release` */
  acquire(ref: DocRef, user: string): Promise<{ room: Room; release(): void }>
  /** whether `room` is still the document's loaded room (a dropped document's is not) */
  isLoaded(room: Room): boolean
}

/** y-protocols drops a state not renewed for 30 s: one left in place is sent again before that. */
const RENEW_MS = 15_000

const PALETTE = ['#7c3aed', '#0891b2', '#c026d3', '#4f46e5', '#0d9488', '#9333ea']

/** FNV-1a: a stable 32-bit number of a string (the client id, the color). */
function hash32(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

interface Session {
  docKey: string
  clientId: number
  clock: number
  state: AgentState
  until: number
  hold: { room: Room; release(): void }
  timer: NodeJS.Timeout | null
}

/** One awareness entry: client id, clock, the state as JSON ("null": the client is gone). */
function entry(clientId: number, clock: number, state: AgentState | null): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, 1)
  encoding.writeVarUint(e, clientId)
  encoding.writeVarUint(e, clock)
  encoding.writeVarString(e, JSON.stringify(state))
  return encoding.toUint8Array(e)
}

export class AgentPresence {
  private readonly sessions = new Map<string, Session>()
  /** shows in flight per session: the second waits for the first's room */
  private readonly pending = new Map<string, Promise<void>>()
  private closed = false

  constructor(
    private readonly rooms: AgentRooms,
    private readonly ttlMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many agent sessions are in rooms of this node. */
  get size(): number {
    return this.sessions.size
  }

  /**
   * Puts the agent in the document's room, or moves it: `cursor` undefined keeps the caret it had,
   * null shows it without one. Never fails the call it goes with: a refusal is logged.
   */
  async show(ref: DocRef, user: string, who: AgentWho, cursor?: AgentCaret | null): Promise<void> {
    if (this.closed) return
    const docKey = `${ref.org}/${ref.doc}/${ref.branch}`
    const id = `${docKey}\n${who.key}`
    const before = this.pending.get(id)
    const mine = (async () => {
      if (before) await before
      let s = this.sessions.get(id)
      if (s && !this.rooms.isLoaded(s.hold.room)) {
        this.end(id, s, false)
        s = undefined
      }
      const state: AgentState = {
        user: { name: who.name, color: PALETTE[hash32(who.name) % PALETTE.length]!, kind: 'agent' },
        cursor: cursor === undefined ? (s?.state.cursor ?? null) : cursor,
      }
      if (who.model) state.user.model = who.model
      if (!s) {
        const hold = await this.rooms.acquire(ref, user)
        if (this.closed) return hold.release()
        // never 0, and clear of y-protocols' own ids only by chance, as every client's is
        const clientId = hash32(id) || 1
        s = { docKey, clientId, clock: 0, state, until: 0, hold, timer: null }
        this.sessions.set(id, s)
      }
      s.state = state
      s.until = this.now() + this.ttlMs
      this.send(id, s, state)
    })()
    this.pending.set(id, mine)
    try {
      await mine
    } catch (err) {
      this.log.warn({ err }, 'agent presence: not shown')
    } finally {
      if (this.pending.get(id) === mine) this.pending.delete(id)
    }
  }

  /** The agent is done in this document: it leaves the room at once. Whether it was there. */
  async done(ref: DocRef, who: Pick<AgentWho, 'key'>): Promise<boolean> {
    const id = `${ref.org}/${ref.doc}/${ref.branch}\n${who.key}`
    await this.pending.get(id)?.catch(() => {})
    const s = this.sessions.get(id)
    if (!s) return false
    this.end(id, s, true)
    return true
  }

  /** The server closes: sessions end without a word (their rooms close with their sockets). */
  close(): void {
    this.closed = true
    for (const [id, s] of [...this.sessions]) this.end(id, s, false)
  }

  private send(id: string, s: Session, state: AgentState | null): void {
    s.clock = Math.max(s.clock + 1, this.now())
    try {
      s.hold.room.applyRestAwareness(entry(s.clientId, s.clock, state))
    } catch (err) {
      // a person's client holds the same id (one in 2^32): the agent goes unseen here
      this.log.warn({ err, doc: s.docKey }, 'agent presence: awareness refused')
    }
    if (state) this.arm(id, s)
  }

  /** One timer per session: due at its TTL, or when its state must be renewed, whichever is first. */
  private arm(id: string, s: Session): void {
    if (s.timer) clearTimeout(s.timer)
    const due = Math.min(s.until, this.now() + RENEW_MS)
    s.timer = setTimeout(
      () => {
        s.timer = null
        if (this.now() >= s.until) this.end(id, s, true)
        else this.send(id, s, s.state)
      },
      Math.max(0, due - this.now()),
    )
    s.timer.unref()
  }

  private end(id: string, s: Session, announce: boolean): void {
    if (s.timer) clearTimeout(s.timer)
    s.timer = null
    if (this.sessions.get(id) === s) this.sessions.delete(id)
    if (announce) this.send(id, s, null)
    s.hold.release()
  }
}
