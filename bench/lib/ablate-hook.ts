// Bench-only: loaded into a Tandem server process with `--import tsx --import bench/lib/ablate-hook.ts`
// by bench/ablate.ts, never by the product. Takes one part of the per-update path away by patching
// the loaded modules' prototypes before the server starts (the server imports the same module
// instances), as named in TANDEM_BENCH_ABLATE (comma separated):
//   relay       a room that only relays: the update frame goes to the room's other sockets, no
//               scan, no Y.Doc, no storage, no group commit
//   noapply     no Y.applyUpdate (and so no unchanged check): scanned, queued, written, broadcast
//   noscan      no structural scan before the apply
//   nounchanged no unchanged-update check (pending-state compare, `changed` flag): every update queued
//   nometrics   prom-client's inc/dec/set/observe are no-ops
//   nosinks     the group committer gets no sinks (webhooks' per-cycle marks)
//   nowrite     the store's appendMany numbers the writes and returns without writing
//   nodefer     every update applied to the document as it arrives (no deferred apply)
// Each patched method is a copy of the product's with the one part removed: a change to the
// product's method must be mirrored here, or the variant measures old code.
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'
import * as Y from 'yjs'
import { GroupCommitter } from '../../src/collab/group-commit.js'
import { Room } from '../../src/collab/room.js'
import { AppError } from '../../src/infra/errors.js'
import { encodeUpdate } from '../../src/protocol/messages.js'
import { scanUpdate } from '../../src/protocol/update-scan.js'
import { LevelDocStore } from '../../src/storage/leveldb/store.js'
import type { AppendedSeqs, AppendWrite } from '../../src/storage/doc-store.js'

const off = new Set((process.env.TANDEM_BENCH_ABLATE ?? '').split(',').filter(Boolean))
const known = ['relay', 'noapply', 'noscan', 'nounchanged', 'nometrics', 'nosinks', 'nowrite', 'nodefer']
for (const a of off) if (!known.includes(a)) throw new Error(`ablate-hook: unknown ablation ${a}`)

// The room's private state, as this copy of its methods touches it.
interface RoomInternals {
  o: { docId: string; maxDocBytes: number; now(): number; transport: { publish(t: string, b: Uint8Array, except?: unknown): void }; metrics: { updatesUnchanged: { inc(): void } }; committer: { enqueue(r: unknown): void } }
  destroyed: boolean
  approxBytes: number
  changed: boolean
  version: number
  pending: object[]
  fullState: { invalidate(): void }
  doc: Y.Doc
}
const proto = Room.prototype as unknown as Record<string, unknown>

if (off.has('nodefer')) proto.defer = () => false

if (off.has('relay')) {
  proto.receiveUpdate = function (this: RoomInternals, peer: { socket: unknown }, update: Uint8Array) {
    if (!this.destroyed) this.o.transport.publish(this.o.docId, encodeUpdate(update), peer.socket)
  }
}

if (off.has('noapply') || off.has('noscan') || off.has('nounchanged')) {
  const apply = !off.has('noapply')
  const scan = !off.has('noscan')
  const check = apply && !off.has('nounchanged')
  proto.ingest = function (this: RoomInternals, update: Uint8Array, user: string, origin: unknown, attrs: unknown) {
    if (update.length === 2 && update[0] === 0 && update[1] === 0) {
      this.o.metrics.updatesUnchanged.inc()
      return null
    }
    if (scan) {
      try {
        scanUpdate(update)
      } catch {
        throw new AppError('malformed_message', 'malformed Yjs update')
      }
    }
    if (this.approxBytes + update.length > this.o.maxDocBytes) throw new AppError('doc_too_large', 'too large')
    const receivedAt = performance.now()
    const store = this.doc.store as unknown as { pendingStructs: { update: Uint8Array } | null; pendingDs: Uint8Array | null }
    const before = check ? [store.pendingStructs?.update ?? null, store.pendingDs] : null
    this.changed = false
    if (apply) Y.applyUpdate(this.doc, update, origin ?? 'rest')
    if (before) {
      const moved = before[0] !== (store.pendingStructs?.update ?? null) || before[1] !== store.pendingDs
      if (moved) {
        this.fullState.invalidate()
        this.version++
      }
      if (!this.changed && !moved) {
        this.o.metrics.updatesUnchanged.inc()
        return null
      }
    }
    this.approxBytes += update.length
    const queued: Record<string, unknown> = { user, at: this.o.now(), update, origin, receivedAt }
    if (attrs) queued.attrs = attrs
    this.pending.push(queued)
    this.o.committer.enqueue(this)
    return queued
  }
}

if (off.has('nometrics')) {
  const noop = function (): void {}
  // Counter and Histogram pick their inc/observe from these in their constructors (own
  // properties), which run after this hook: patching `inc`/`observe` alone would miss them.
  const methods = ['inc', 'dec', 'set', 'observe', 'incWithoutExemplar', 'observeWithoutExemplar']
  for (const C of [Counter, Gauge, Histogram] as unknown as { prototype: Record<string, unknown> }[]) {
    for (const m of methods) if (typeof C.prototype[m] === 'function') C.prototype[m] = noop
  }
}

if (off.has('nosinks')) {
  ;(GroupCommitter.prototype as unknown as Record<string, unknown>).addSink = function (): void {}
}

if (off.has('nowrite')) {
  const seq = new Map<string, number>()
  ;(LevelDocStore.prototype as unknown as Record<string, unknown>).appendMany = async function (writes: AppendWrite[]): Promise<AppendedSeqs[]> {
    return writes.map((w) => {
      const firstSeq = w.firstSeq ?? (seq.get(w.docId) ?? 0) + 1
      const lastSeq = firstSeq + w.entries.length - 1
      seq.set(w.docId, lastSeq)
      return { docId: w.docId, firstSeq, lastSeq }
    })
  }
}
