// The session's states over a real registry and room (memory store, loop transport), with a codec
// that records what the session tells it: frames held while admitting, one refusal per failure,
// the full room, the hold given back, and the wait for a fresh token.
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Capability } from '../../auth/capability.js'
import type { DeletedDocs } from '../../auth/deleted-docs.js'
import type { KeyRing } from '../../auth/keys/ring.js'
import type { RevocationList } from '../../auth/revocation.js'
import { AppError } from '../../infra/errors.js'
import { createLogger } from '../../infra/log.js'
import { createMetrics } from '../../infra/metrics.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { decodeMessage, encodeAwareness } from '@tandem/protocol/messages'
import { MemoryDocStore } from '../../storage/memory.js'
import { ExpiryClock } from '../expiry-clock.js'
import { RoomRegistry } from '../registry.js'
import { LoopTransport, type PeerSocket } from '../transport.js'
import { Y_WEBSOCKET_READ_ONLY_NOTICES } from '../y-websocket/read-only-notices.js'
import type { SessionDeps } from './session-admission.js'
import type { SessionCodec, SessionEnd, SocketOwner } from './codec.js'
import { DocSession } from './doc-session.js'

class Socket implements PeerSocket {
  sent: Uint8Array[] = []
  constructor(private readonly owner: SocketOwner | null) {}
  send(b: Uint8Array) {
    this.sent.push(b)
    return true
  }
  close(code: CloseCode, reason: string) {
    this.owner?.peerClosed(this, code, reason)
  }
  bufferedAmount() {
    return 0
  }
}

/** A codec that records what it is told; `asks` makes it one that can ask for a fresh token. */
class Recorder implements SessionCodec {
  readonly protocol = 'y-websocket'
  readonly readOnlyNotices = Y_WEBSOCKET_READ_ONLY_NOTICES
  socket: Socket | null = null
  ends: SessionEnd[] = []
  joins = 0
  asked = 0
  private onEnd: (() => void) | null = null
  readonly renewal?: { ask(): void; waitSec: number }

  constructor(asks = false) {
    if (asks) this.renewal = { ask: () => void this.asked++, waitSec: 0.05 }
  }

  /** resolves at the session's end */
  ended$ = new Promise<void>((res) => (this.onEnd = res))
  label(m: { type: string }) {
    return m.type
  }
  attach(owner: SocketOwner) {
    return (this.socket = new Socket(this.renewal ? owner : null))
  }
  detach() {}
  joined() {
    this.joins++
  }
  refreshed() {}
  refreshRefused() {}
  admissionRefused() {}
  ended(end: SessionEnd) {
    this.ends.push(end)
    this.onEnd?.()
  }
}

const cap = (sub = 'u'): Capability => ({
  sub,
  org: 'o',
  doc: 'd',
  branch: 'main',
  acc: 'rw',
  exp: Math.floor(Date.now() / 1000) + 600,
  jti: '',
})

let registry: RoomRegistry
afterEach(async () => registry?.close())

function deps(o: { maxConnectionsPerRoom?: number; maxMessageBytes?: number; deleted?: boolean } = {}): SessionDeps {
  const metrics = createMetrics()
  const log = createLogger('silent')
  registry = new RoomRegistry({
    store: new MemoryDocStore(),
    transport: new LoopTransport(),
    log,
    metrics,
    now: Date.now,
    maxDocBytes: 1 << 20,
    compactThreshold: 100,
    maxBackpressureBytes: 1 << 20,
    unloadDelayMs: 0,
  })
  const deleted = {
    check: () => {
      if (o.deleted) throw new AppError('doc_deleted', 'document deleted')
    },
  }
  return {
    keys: {} as KeyRing,
    revocations: { effectFor: () => null, apply: (c: Capability) => c } as unknown as RevocationList,
    deleted: deleted as unknown as DeletedDocs,
    config: {
      tokenClockSkewSec: 60,
      maxConnectionsPerRoom: o.maxConnectionsPerRoom ?? 10,
      maxMessageBytes: o.maxMessageBytes ?? 1024,
    },
    registry,
    metrics,
    log,
    now: Date.now,
    expiry: new ExpiryClock(),
  }
}

const joined = (s: DocSession) => vi.waitFor(() => expect(s.state).toBe('joined'))

const awareness = (id: number) => ({ type: 'awareness' as const, update: new Uint8Array([1, id, 1, 2, 123, 125]) })

describe('DocSession', () => {
  it('holds what comes while admitting and hands it to the room, in order, once joined', async () => {
    const d = deps()
    const codec = new Recorder()
    const s = new DocSession(codec, d, 'o', 'd')
    let admit!: (c: { cap: Capability }) => void
    s.admit(new Promise((r) => (admit = r)))
    s.message(awareness(7), 6)
    s.message({ type: 'query-awareness' }, 1)
    expect(codec.joins).toBe(0)
    admit({ cap: cap() })
    await joined(s)
    const sent = codec.socket!.sent.slice(0, 2).map((b) => decodeMessage(b).type)
    // the room's sync step 1, then the answer to the held query: the held awareness is in it
    expect(sent).toEqual(['sync-step1', 'awareness'])
    expect(codec.socket!.sent[1]).toEqual(encodeAwareness(awareness(7).update))
  })

  it('refuses a full room through the error table, gives the hold back, and ends once', async () => {
    const d = deps({ maxConnectionsPerRoom: 1 })
    const first = new DocSession(new Recorder(), d, 'o', 'd')
    first.admit(Promise.resolve({ cap: cap('a') }))
    await joined(first)
    const codec = new Recorder()
    const second = new DocSession(codec, d, 'o', 'd')
    second.admit(Promise.resolve({ cap: cap('b') }))
    await codec.ended$
    expect(second.state).toBe('ended')
    expect(codec.ends).toEqual([{ kind: 'refused', code: CLOSE.tryAgainLater, reason: 'room is full' }])
    const room = registry.loaded('o/d/main')!
    expect([room.peers.size, room.holds]).toEqual([1, 0])
  })

  it('refuses a session that holds more than twice the largest message before its join, and never joins it', async () => {
    const d = deps({ maxMessageBytes: 100 })
    const codec = new Recorder()
    const s = new DocSession(codec, d, 'o', 'd')
    let admit!: (c: { cap: Capability }) => void
    s.admit(new Promise((r) => (admit = r)))
    s.message(awareness(1), 100) // 164 counted
    expect(codec.ends).toEqual([])
    s.message(awareness(2), 100) // 328 > 200
    expect(codec.ends).toEqual([
      { kind: 'refused', code: CLOSE.policyViolation, reason: 'too many messages before the document was loaded' },
    ])
    admit({ cap: cap() })
    // once the microtasks of this turn ran, the admission found itself superseded: no room loaded for it
    await new Promise<void>((r) => setImmediate(r))
    expect(codec.joins).toBe(0)
    expect(registry.loaded('o/d/main')).toBeUndefined()
  })

  it('maps a deleted document to 4404 and a refusal decided outside as it came', async () => {
    const codec = new Recorder()
    const s = new DocSession(codec, deps({ deleted: true }), 'o', 'd')
    s.admit(Promise.resolve({ cap: cap() }))
    await codec.ended$
    expect(codec.ends).toEqual([{ kind: 'refused', code: CLOSE.docDeleted, reason: 'document deleted' }])
    const other = new Recorder()
    const t = new DocSession(other, deps(), 'o', 'd')
    t.admit(Promise.resolve({ code: CLOSE.tokenExpired, reason: 'token expired: mint a new one and reconnect' }))
    await other.ended$
    expect(other.ends).toEqual([
      { kind: 'refused', code: CLOSE.tokenExpired, reason: 'token expired: mint a new one and reconnect' },
    ])
  })

  it('a protocol that can ask waits for a fresh token at expiry (reauth), then gives up with 4401', async () => {
    const codec = new Recorder(true)
    const s = new DocSession(codec, deps(), 'o', 'd')
    s.admit(Promise.resolve({ cap: cap() }))
    await joined(s)
    codec.socket!.close(CLOSE.tokenExpired, 'token expired: refresh it or reconnect with a new one')
    expect(s.state).toBe('reauth')
    expect(codec.asked).toBe(1)
    expect(registry.loaded('o/d/main')!.peers.size).toBe(0)
    await codec.ended$
    expect(codec.ends).toEqual([
      { kind: 'refused', code: CLOSE.tokenExpired, reason: 'token expired: refresh it or reconnect with a new one' },
    ])
  })

  it('without a way to ask, a closed peer ends the session as the room said', async () => {
    const codec = new Recorder()
    const s = new DocSession(codec, deps(), 'o', 'd')
    s.admit(Promise.resolve({ cap: cap() }))
    await joined(s)
    s.peerClosed(codec.socket!, CLOSE.docDeleted, 'document deleted')
    expect(s.state).toBe('ended')
    expect(codec.ends).toEqual([{ kind: 'closed', code: CLOSE.docDeleted, reason: 'document deleted' }])
  })
})
