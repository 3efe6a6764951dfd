// WebSocket side of the collab listener: authenticate and load the room before the upgrade,
// then hand each socket to a Connection. Native pub/sub carries room broadcasts.
import type uWS from 'uWebSockets.js'
import { TokenRefused, refusalKind, type Capability } from '../../auth/capability.js'
import { AppError, isAppError, publicMessage } from '../../infra/errors.js'
import { CLOSE } from '../../protocol/close-codes.js'
import { Connection } from '../connection.js'
import { Peer } from '../peer.js'
import type { Room } from '../room.js'
import type { PeerSocket, Transport } from '../transport.js'
import type { CollabListenerDeps } from './deps.js'
import { Reply } from './http.js'
import { upgradeAuthorizer, type UpgradeDecision } from './upgrade-auth.js'
import { throttleOf } from './throttle.js'

export interface SocketData {
  /** Null for a socket accepted only to be closed at once (`closeAtOnce`). */
  room: Room | null
  cap: Capability | null
  conn: Connection | null
  closeAtOnce?: { code: number; reason: string }
}

/** Paced messages go out in fragments of this size, each after the previous one drained. */
const FRAGMENT_BYTES = 32 * 1024
const DRAIN_RECHECK_MS = 10

class UwsSocket implements PeerSocket {
  closed = false
  /** sends waiting behind a paced message (null when none is going out) */
  private waiting: Uint8Array[] | null = null
  private onDrain: (() => void) | null = null
  // The process's metrics, not a closure per socket: thousands of idle sockets each pay for it.
  constructor(
    readonly ws: uWS.WebSocket<SocketData>,
    private readonly metrics: CollabListenerDeps['metrics'],
  ) {}

  send(bytes: Uint8Array): boolean {
    if (this.closed) return false
    if (this.waiting) {
      this.waiting.push(bytes)
      return true
    }
    this.metrics.messagesOut.inc()
    this.metrics.bytesOut.inc(bytes.length)
    return this.ws.send(bytes, true) !== 2
  }

  bufferedAmount(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount()
  }

  // uWS keeps the capacity of a socket's send buffer after it drains: one 1 MB sync step 2
  // that the kernel did not take at once left ~1.4 MB per socket (connect storms: GBs). In
  // fragments that each wait for the previous one, the buffer stays a fragment's size.
  async sendPaced(bytes: Uint8Array): Promise<boolean> {
    if (this.closed) return false
    if (this.waiting || bytes.length <= FRAGMENT_BYTES) return this.send(bytes)
    this.waiting = []
    try {
      this.metrics.messagesOut.inc()
      this.metrics.bytesOut.inc(bytes.length)
      for (let off = 0; off < bytes.length; off += FRAGMENT_BYTES) {
        // Next fragment once less than one is queued. uWS does not always call drain after a
        // partial write (seen with fragments), so a short timer re-checks too.
        while (!this.closed && this.ws.getBufferedAmount() >= FRAGMENT_BYTES) await this.drainOrTimeout()
        if (this.closed) return false
        const end = Math.min(bytes.length, off + FRAGMENT_BYTES)
        const part = bytes.subarray(off, end)
        if (off === 0) this.ws.sendFirstFragment(part, true)
        else if (end === bytes.length) this.ws.sendLastFragment(part)
        else this.ws.sendFragment(part)
      }
      return true
    } finally {
      const waiting = this.waiting
      this.waiting = null
      if (!this.closed) for (const b of waiting) this.send(b)
    }
  }

  private drainOrTimeout(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_RECHECK_MS)
      this.onDrain = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  /** uWS drain callback, and close: wakes a paced send waiting for room in the buffer. */
  drained(): void {
    const wake = this.onDrain
    this.onDrain = null
    wake?.()
  }

  markClosed(): void {
    this.closed = true
    this.drained()
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    this.ws.end(code, reason)
    this.drained()
  }
}

export class UwsTransport implements Transport {
  constructor(private readonly app: uWS.TemplatedApp) {}

  join(socket: PeerSocket, topic: string): void {
    ;(socket as UwsSocket).ws.subscribe(topic)
  }

  leave(socket: PeerSocket, topic: string): void {
    const s = socket as UwsSocket
    if (!s.closed) s.ws.unsubscribe(topic)
  }

  publish(topic: string, bytes: Uint8Array, except?: PeerSocket): void {
    const s = except as UwsSocket | undefined
    if (s && !s.closed) s.ws.publish(topic, bytes, true)
    else this.app.publish(topic, bytes, true)
  }
}

/** The socket of an upgrade accepted only to be closed at once (an expired token, see upgrade-auth.ts). */
function closingData(decision: { code: number; reason: string }): SocketData {
  return { room: null, cap: null, conn: null, closeAtOnce: { code: decision.code, reason: decision.reason } }
}

export function webSocketBehavior(
  d: CollabListenerDeps,
  transport: Transport,
  sockets: Set<uWS.WebSocket<SocketData>>,
): uWS.WebSocketBehavior<SocketData> {
  const { config, metrics } = d
  const authorize = upgradeAuthorizer(d)
  const throttle = throttleOf(d)
  return {
    // uWS drops a frame over its own limit without a close frame (1006). It gets headroom so
    // messages up to 4x our limit are refused by us, properly, with 1009.
    maxPayloadLength: Math.min(config.maxMessageBytes * 4, 1024 * 1024 * 1024),
    maxBackpressure: config.maxBackpressureBytes * 4,
    closeOnBackpressureLimit: 1,
    idleTimeout: config.idleTimeoutSec,
    sendPingsAutomatically: true,

    upgrade(res, req, context) {
      // Everything from req is copied before the first await.
      const url = req.getUrl()
      const query = new URLSearchParams(req.getQuery() ?? '')
      const key = req.getHeader('sec-websocket-key')
      const protocols = req.getHeader('sec-websocket-protocol')
      const extensions = req.getHeader('sec-websocket-extensions')
      const origin = req.getHeader('origin')
      const ip = throttle.clientIp(res, req)
      const reply = new Reply(res)

      const refuse = (err: unknown, room?: Room): void => {
        if (room) d.registry.release(room)
        if (!isAppError(err)) d.log.error({ err }, 'upgrade failed')
        else if (err instanceof TokenRefused) {
          metrics.authRefusals.inc({ where: 'upgrade', reason: refusalKind(err) })
          d.log.info({ ip, path: url, reason: err.reason }, 'upgrade refused: token')
        } else if (err.status === 403) d.log.info({ ip, path: url, origin, reason: err.message }, 'upgrade refused')
        const status = isAppError(err) ? err.status : 500
        if (status === 401) throttle.authFailed(ip)
        metrics.httpRequests.inc({ listener: 'collab', route: 'upgrade', method: 'GET', status: String(status) })
        const retryAfter = isAppError(err) ? err.extra.retryAfterSec : undefined
        reply.json(status, { error: publicMessage(err), code: isAppError(err) ? err.code : 'internal' }, retryAfter ? { 'retry-after': String(retryAfter) } : {})
      }
      const roomFull = (room: Room) => room.peers.size >= config.maxConnectionsPerRoom

      // Upgrade inside this handler whenever nothing has to be waited for (the token's key is in
      // the ring, the room is loaded): uWS upgrades the socket itself. After an await the upgrade
      // has to go through cork(), which in this uWS build closes about one fresh socket in
      // 300-2,000 (bench/README.md, "1006"); that path remains for a room's first join.
      let decision: UpgradeDecision | Promise<UpgradeDecision>
      let held: Room | undefined
      try {
        const refused = throttle.admitUpgrade(ip)
        if (refused) throw refused
        decision = authorize({ url, query, protocols, origin, ip })
        if (!(decision instanceof Promise)) {
          if (decision.kind === 'close') {
            reply.done = true
            res.upgrade(closingData(decision), key, decision.protocol, extensions, context)
            return
          }
          held = d.registry.acquireLoaded({ org: decision.org, doc: decision.doc, branch: decision.cap.branch }) ?? undefined
          if (held) {
            if (roomFull(held)) throw new AppError('room_full', 'room is full')
            reply.done = true
            res.upgrade({ room: held, cap: decision.cap, conn: null } satisfies SocketData, key, decision.protocol, extensions, context)
            return
          }
        }
      } catch (err) {
        refuse(err, held)
        return
      }

      void (async () => {
        let room: Room | undefined
        try {
          const decided = await decision
          if (decided.kind === 'close') {
            if (reply.aborted) return
            reply.done = true
            await new Promise((r) => setImmediate(r)) // a fresh turn, as below
            if (!reply.aborted) res.cork(() => res.upgrade(closingData(decided), key, decided.protocol, extensions, context))
            return
          }
          const { org, doc, cap, protocol } = decided
          room = await d.registry.acquire({ org, doc, branch: cap.branch }, cap.sub)
          if (roomFull(room)) throw new AppError('room_full', 'room is full')
          if (reply.aborted) throw new AppError('bad_request', 'client went away')
          const data: SocketData = { room, cap, conn: null }
          reply.done = true
          // Upgrade on a fresh turn: this continuation may run inside another socket's uWS
          // callback (with that socket corked); corking here then sometimes sent our 101 and
          // writes to the wrong place and the new connection dropped with 1006.
          await new Promise((r) => setImmediate(r))
          if (reply.aborted) throw new AppError('bad_request', 'client went away')
          res.cork(() => res.upgrade(data, key, protocol, extensions, context))
        } catch (err) {
          refuse(err, room)
        }
      })()
    },

    open(ws) {
      const data = ws.getUserData()
      if (data.closeAtOnce || !data.room || !data.cap) {
        const { code, reason } = data.closeAtOnce ?? { code: CLOSE.internalError, reason: 'no room' }
        ws.end(code, reason)
        return
      }
      const socket = new UwsSocket(ws, metrics)
      const peer = new Peer(socket, data.cap)
      data.conn = new Connection(data.room, peer, d)
      sockets.add(ws)
      metrics.connections.inc()
      // The room join (and its first sends) runs on the next turn, outside the upgrade's cork;
      // a message arriving first opens the connection itself.
      const conn = data.conn
      setImmediate(() => conn.open())
    },

    message(ws, message) {
      metrics.bytesIn.inc(message.byteLength)
      if (message.byteLength > config.maxMessageBytes) {
        ws.getUserData().conn?.peer.close(CLOSE.tooLarge, `message over ${config.maxMessageBytes} bytes`)
        return
      }
      const overLimit = throttle.chargeFrame(ws, message.byteLength)
      if (overLimit) {
        ws.getUserData().conn?.peer.close(CLOSE.policyViolation, overLimit)
        return
      }
      // The ArrayBuffer is only valid during this call; handlers may keep slices past an await.
      ws.getUserData().conn?.message(new Uint8Array(message.slice(0)))
    },

    close(ws, code) {
      if (!ws.getUserData().conn) {
        metrics.closes.inc({ code: String(code) })
        return
      }
      sockets.delete(ws)
      metrics.connections.dec()
      metrics.closes.inc({ code: String(code) })
      const conn = ws.getUserData().conn
      if (conn) {
        ;(conn.peer.socket as UwsSocket).markClosed()
        conn.close()
      }
    },

    drain(ws) {
      ;(ws.getUserData().conn?.peer.socket as UwsSocket | undefined)?.drained()
    },
  }
}
