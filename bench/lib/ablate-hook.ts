// Bench-only: loaded into a Tandem server process with `--import tsx --import bench/lib/ablate-hook.ts`
// by bench/ablate.ts, never by the product. Takes one part of the per-update path away by patching
// the loaded modules' prototypes before the server starts (the server imports the same module
// instances), as named in TANDEM_BENCH_ABLATE (comma separated):
//   relay       a room that only relays: the update frame goes to the room's other sockets, no
//               scan, no judging against the document, no storage, no group commit
//   nometrics   prom-client's inc/dec/set/observe are no-ops
//   nosinks     the group committer gets no sinks (webhooks' per-cycle marks)
//   nowrite     the store's appendMany numbers the writes and returns without writing
// Only public methods and library prototypes are patched: the room's own steps are not copied here.
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'
import { GroupCommitter } from '../../src/collab/group-commit.js'
import { Room } from '../../src/collab/room/room.js'
import { encodeUpdate } from '../../src/protocol/messages.js'
import { LevelDocStore } from '../../src/storage/leveldb/store.js'
import type { AppendedSeqs, AppendWrite } from '../../src/storage/doc-store.js'

const off = new Set((process.env.TANDEM_BENCH_ABLATE ?? '').split(',').filter(Boolean))
const known = ['relay', 'nometrics', 'nosinks', 'nowrite']
for (const a of off) if (!known.includes(a)) throw new Error(`ablate-hook: unknown ablation ${a}`)

const proto = Room.prototype as unknown as Record<string, unknown>

if (off.has('relay')) {
  proto.receiveUpdate = function (this: { destroyed: boolean; docId: string; o: { transport: { publish(t: string, b: Uint8Array, except?: unknown): void } } }, peer: { socket: unknown }, update: Uint8Array) {
    if (!this.destroyed) this.o.transport.publish(this.docId, encodeUpdate(update), peer.socket)
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
