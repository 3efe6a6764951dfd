// The raw-protocol load client (`tandem loadtest`, and the comparison runs beside it): one WebSocket, one document,
// either framing. It syncs like a provider (step 1 out, answers the server's step 1), sends marked updates and
// awareness states, and reports what it receives to a Tally (tally.ts). No Y.Doc is applied on receipt: payloads are
// decoded (once per distinct payload, via a shared cache) and their marks read.
import WebSocket from 'ws'
import * as Y from 'yjs'
import { encodeAuthRefresh } from '@tandem/protocol/messages'
import { MarkWriter, now } from './marks.js'
import type { Tally } from './tally.js'
import { encodeAwarenessState } from '@tandem/protocol/awareness-entries'
import { Framing, type Dialect } from '@tandem/protocol/client-framing'

export interface Target {
  url: string
  dialect: Dialect
  /** Hocuspocus document name (the y-websocket dialect carries the room in the URL). */
  docName: string
  /** Hocuspocus auth message token; Tandem's token travels in the URL. */
  token: string
}

export interface ClientOptions {
  tally?: Tally
  /** When set, the client counts as synced once these bytes appear in a received sync payload. */
  marker?: Buffer
  /** Apply every received document payload to this Y.Doc (a provider's work) before counting as synced. */
  applyTo?: Y.Doc
  connectTimeoutMs?: number
  /** local address to connect from (127.0.0.x: spreads per-address limits as many users would) */
  localAddress?: string
  /**
   * every awareness update received, with its receipt time, instead of the tally (the presence scenario's view of the
   * room)
   */
  onAwareness?: (update: Uint8Array, recv: number) => void
}

export class LoadClient {
  private ws: WebSocket | null = null
  private readonly framing: Framing
  private writer: MarkWriter | null = null
  private seq = 0
  private awarenessClock = 0
  private readonly seen = new Set<number>()
  private readonly seenAwareness = new Set<number>()
  private resolveSynced: (() => void) | null = null
  private rejectSynced: ((e: Error) => void) | null = null

  startedAt = 0
  openedAt = 0
  syncedAt = 0
  bytesIn = 0
  messagesIn = 0
  closed = false
  closeCode = 0
  closeReason = ''
  error: string | null = null
  sent = 0
  awarenessSent = 0

  constructor(
    /** the client's index across the whole load: the `sender` of its marks */
    readonly id: number,
    readonly target: Target,
    private readonly opts: ClientOptions = {},
  ) {
    this.framing = new Framing(target.dialect, target.docName)
  }

  get open(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN
  }

  /** Opens the socket and resolves once synced (or rejects on refusal, close or timeout). */
  connect(): Promise<void> {
    this.startedAt = now()
    const timeoutMs = this.opts.connectTimeoutMs ?? 30_000
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`not synced within ${timeoutMs} ms`)), timeoutMs)
      const fail = (e: Error): void => {
        clearTimeout(timer)
        if (!this.rejectSynced) return
        this.rejectSynced = null
        this.resolveSynced = null
        this.error = e.message
        reject(e)
      }
      this.resolveSynced = () => {
        clearTimeout(timer)
        this.rejectSynced = null
        this.resolveSynced = null
        this.syncedAt = now()
        resolve()
      }
      this.rejectSynced = fail
      const ws = new WebSocket(this.target.url, {
        perMessageDeflate: false,
        maxPayload: 512 * 1024 * 1024,
        ...(this.opts.localAddress ? { localAddress: this.opts.localAddress } : {}),
      })
      ws.binaryType = 'nodebuffer'
      this.ws = ws
      ws.on('open', () => {
        this.openedAt = now()
        if (this.target.dialect === 'hocuspocus') ws.send(this.framing.auth(this.target.token))
        ws.send(this.framing.step1(this.getWriter().stateVector()))
      })
      ws.on('message', (data: Buffer) => this.onMessage(data))
      ws.on('unexpected-response', (_req, res) => fail(new Error(`upgrade refused: HTTP ${res.statusCode}`)))
      ws.on('error', (err) => fail(err))
      ws.on('close', (code, reason) => {
        this.closed = true
        this.closeCode = code
        this.closeReason = reason.toString()
        fail(new Error(`closed with ${code} before sync`))
      })
    })
  }

  private getWriter(): MarkWriter {
    if (!this.writer) this.writer = new MarkWriter(this.id)
    return this.writer
  }

  private onMessage(data: Buffer): void {
    const recv = now()
    this.bytesIn += data.length
    this.messagesIn++
    let msg
    try {
      msg = this.framing.decode(data)
    } catch {
      this.error = 'undecodable message from server'
      return
    }
    switch (msg.kind) {
      case 'step1':
        this.ws?.send(this.framing.step2(this.getWriter().diff(msg.payload)))
        return
      case 'step2':
      case 'update': {
        const marker = this.opts.marker
        if (this.opts.applyTo) Y.applyUpdate(this.opts.applyTo, msg.payload)
        if (this.resolveSynced) {
          if (
            !marker ||
            Buffer.from(msg.payload.buffer, msg.payload.byteOffset, msg.payload.byteLength).indexOf(marker) >= 0
          ) {
            if (msg.kind === 'step2' || marker) this.resolveSynced()
          }
        }
        if (this.opts.tally && !marker)
          this.opts.tally.record(this.id, this.seen, this.opts.tally.updates.get(msg.payload), recv, false)
        return
      }
      case 'awareness':
        if (this.opts.onAwareness) this.opts.onAwareness(msg.payload, recv)
        else if (this.opts.tally)
          this.opts.tally.record(this.id, this.seenAwareness, this.opts.tally.awareness.get(msg.payload), recv, true)
        return
      case 'auth':
        if (msg.sub === 0) {
          this.error = `permission denied: ${msg.text}`
          // a Hocuspocus refusal leaves the socket open: the connect fails on it, not on its timeout
          this.rejectSynced?.(new Error(this.error))
        }
        return
      case 'ping':
        this.ws?.send(this.framing.pong())
        return
      default:
        return
    }
  }

  /** Sends an update that replaces this client's one entry (documents do not grow); false if not open. */
  sendOverwrite(): boolean {
    if (!this.open) return false
    this.ws!.send(this.framing.update(this.getWriter().overwrite()))
    this.sent++
    return true
  }

  /** Sends one marked document update; returns false if the socket is not open. */
  sendMark(): boolean {
    if (!this.open) return false
    const u = this.getWriter().write(++this.seq)
    this.ws!.send(this.framing.update(u))
    this.sent++
    return true
  }

  /** Sends one awareness state carrying a mark. */
  sendAwareness(): boolean {
    if (!this.open) return false
    const seq = ++this.awarenessClock
    const state = { b: this.id, s: seq, t: now(), user: { name: `load-${this.id}` } }
    this.ws!.send(this.framing.awareness(encodeAwarenessState(this.awarenessClientId(), seq, state)))
    this.awarenessSent++
    return true
  }

  private awarenessClientId(): number {
    return 1_000_000 + this.id
  }

  /** A fresh token for the same document, in band, so the socket outlives the old one. */
  refreshToken(token: string): boolean {
    if (!this.open) return false
    // Hocuspocus: Auth again on an open document; y-websocket: Tandem's refresh message
    this.ws!.send(this.target.dialect === 'yws' ? encodeAuthRefresh(token) : this.framing.auth(token))
    return true
  }

  /** Sends a raw Yjs update. */
  sendUpdate(update: Uint8Array): boolean {
    if (!this.open) return false
    this.ws!.send(this.framing.update(update))
    return true
  }

  /** Sends a raw Yjs update (seeding); resolves when the server has answered a later step 1. */
  async sendUpdateAndConfirm(update: Uint8Array, stateVector?: Uint8Array, timeoutMs = 60_000): Promise<void> {
    if (!this.open) throw new Error('socket not open')
    this.ws!.send(this.framing.update(update))
    await this.confirm(stateVector, timeoutMs)
  }

  /**
   * Resolves once the server answered a step 1 sent now: messages are handled in order, so every
   * update this socket sent before was applied (Tandem answers only once those are durable). Our
   * state vector (or the one given) keeps the answer small: only what we lack is sent back.
   */
  async confirm(stateVector?: Uint8Array, timeoutMs = 60_000): Promise<void> {
    if (!this.open) throw new Error('socket not open')
    const ws = this.ws!
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.off('message', onMsg)
        ws.off('close', onClose)
        reject(new Error('no confirmation from server'))
      }, timeoutMs)
      const onClose = (code: number, reason: Buffer): void => {
        clearTimeout(timer)
        ws.off('message', onMsg)
        reject(new Error(`closed with ${code} ${reason.toString()} before confirmation`))
      }
      const onMsg = (data: Buffer): void => {
        try {
          if (this.framing.decode(data).kind !== 'step2') return
        } catch {
          return
        }
        clearTimeout(timer)
        ws.off('message', onMsg)
        ws.off('close', onClose)
        resolve()
      }
      ws.on('message', onMsg)
      ws.once('close', onClose)
      ws.send(this.framing.step1(stateVector ?? this.getWriter().stateVector()))
    })
  }

  close(): Promise<void> {
    const ws = this.ws
    this.writer?.destroy()
    this.writer = null
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        ws.terminate()
        resolve()
      }, 3000)
      ws.once('close', () => {
        clearTimeout(t)
        resolve()
      })
      ws.close()
    })
  }
}
