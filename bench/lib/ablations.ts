// The parts bench/ablate.ts takes away from a real server, one name each, composed through
// createServer's parts (ServerParts): the server itself has no setting for any of them.
//   relay      rooms relay each update to their other sockets: nothing judged, kept, stored or committed
//   nometrics  metrics record nothing and the process metrics are never collected
//   nosinks    the group committer takes no sinks (the webhooks' per-cycle marks)
//   nowrite    appends are numbered and dropped unwritten (snapshots are still written)
import { GroupCommitter, type CommitSink, type GroupCommitOptions } from '../../src/collab/group-commit.js'
import type { Peer } from '../../src/collab/peer.js'
import { Fanout } from '../../src/collab/room/fanout.js'
import { Room, type RoomOptions } from '../../src/collab/room/room.js'
import type { Logger } from '../../src/infra/log.js'
import { createMetrics } from '../../src/infra/metrics.js'
import { encodeUpdate } from '@tandem/protocol/messages'
import type { ServerParts } from '../../src/compose/server.js'
import { DiscardingStore } from './discarding-store.js'
import { QUIET_KINDS } from './quiet-metrics.js'

export const ABLATIONS = ['relay', 'nometrics', 'nosinks', 'nowrite'] as const
export type Ablation = (typeof ABLATIONS)[number]

/** A comma list of ablation names; an unknown one throws, naming the known ones. */
export function parseAblations(list: string): Ablation[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = names.find((n) => !(ABLATIONS as readonly string[]).includes(n))
  if (unknown !== undefined)
    throw new Error(`ablate: unknown name ${JSON.stringify(unknown)}; expected any of ${ABLATIONS.join(', ')}`)
  return names as Ablation[]
}

/** The server's parts with `names` taken away; says so on `log` when any is. */
export function ablationParts(names: readonly Ablation[], log?: Logger): ServerParts {
  const off = new Set(names)
  if (off.size > 0)
    log?.warn({ ablations: [...off] }, 'ablations on: updates are lost or unseen; for a measurement only')
  return {
    ...(off.has('nometrics') && { metrics: () => createMetrics({ kinds: QUIET_KINDS, defaults: false }) }),
    ...(off.has('nowrite') && { docStore: (store) => new DiscardingStore(store) }),
    ...(off.has('nosinks') && { buildCommitter: (o) => new SinklessCommitter(o) }),
    ...(off.has('relay') && { buildRoom: (o) => new RelayRoom(o) }),
  }
}

/** A committer whose cycles tell no sink: those given and those added later are dropped. */
export class SinklessCommitter extends GroupCommitter {
  constructor(o: GroupCommitOptions) {
    super({ ...o, sinks: [] })
  }

  override addSink(_sink: CommitSink): void {}
}

/**
 * A room that sends each update as it came to everyone else, unchecked and unkept: the socket work
 * alone. Read-only peers are still refused, and a closing room still refuses, as a Room does.
 */
export class RelayRoom extends Room {
  private readonly relayFanout: Fanout

  constructor(o: RoomOptions) {
    super(o)
    this.relayFanout = new Fanout(
      o.transport,
      o.docId,
      o.maxBackpressureBytes,
      () => this.peers,
      (p) => this.leave(p),
    )
  }

  override receiveUpdate(peer: Peer, update: Uint8Array, isStep2: boolean): void {
    if (!peer.canWrite || this.destroyed) return super.receiveUpdate(peer, update, isStep2)
    this.relay(update, peer)
  }

  override receiveAcked(peer: Peer, update: Uint8Array, done: Parameters<Room['receiveAcked']>[2]): void {
    if (this.destroyed) return super.receiveAcked(peer, update, done)
    this.relay(update, peer)
    done.resolve()
  }

  override applyUpdate(
    update: Uint8Array,
    user: string,
    origin: Peer | null,
    attrs?: Parameters<Room['applyUpdate']>[3],
  ): Promise<number | null> {
    if (this.destroyed) return super.applyUpdate(update, user, origin, attrs)
    this.relay(update, origin)
    return Promise.resolve(null) // never logged
  }

  private relay(update: Uint8Array, origin: Peer | null): void {
    this.relayFanout.publish(encodeUpdate(update), origin?.socket)
  }
}
