// What loaded documents cost the process, against --memory-budget-mb: every room's document, held
// and unwritten updates and cached frames, what its sockets have queued, and the transient Y.Docs.
// Before a room loads past the budget, idle rooms unload early (least recently idle first); failing
// that the load is refused (1013 / 503 'server at capacity').
import { getHeapStatistics } from 'node:v8'
import { AppError } from '../infra/errors.js'
import type { Metrics } from '../infra/metrics.js'
import type { DocBuilds } from './room/doc-builds.js'
import type { Room } from './room/room.js'

/** what a live Y.Doc costs per byte of its encoded document (measured: 13-16x) */
const Y_DOC_BYTES_PER_ENCODED_BYTE = 14
/** what a client refused at capacity is told to wait before trying again (s) */
const CAPACITY_RETRY_SEC = 5

/** --memory-budget-mb in bytes; 0 means half the V8 heap limit (a Y.Doc built for a call lives there). */
export function memoryBudgetBytes(mb: number): number {
  return mb > 0 ? mb * 1024 * 1024 : Math.floor(getHeapStatistics().heap_size_limit / 2)
}

/** The rooms the budget counts and may unload. */
export interface BudgetedRooms {
  /** every loaded room */
  loaded(): Iterable<Room>
  /** idle rooms waiting for their unload, in the order they became idle */
  idle(): Room[]
  /** unloads a room now if it is still idle and flushed (else leaves it loaded) */
  unload(room: Room): Promise<void>
  isLoaded(room: Room): boolean
}

export class MemoryBudget {
  constructor(
    /** bytes past which idle rooms unload and new ones are refused (0: none) */
    private readonly budgetBytes: number,
    private readonly rooms: BudgetedRooms,
    private readonly docBuilds: DocBuilds,
    private readonly metrics: Metrics,
  ) {
    metrics.memory.used = () => this.used()
    metrics.memory.roomBytes = () => [...rooms.loaded()].map((r) => r.bytes)
  }

  /**
   * Bytes the budget counts: every loaded room's document, held and unwritten updates and cached
   * frames, what its sockets have queued, the transient Y.Docs being used, and what the calls
   * waiting to build one hold meanwhile.
   */
  used(): number {
    let n = this.docBuilds.bytesInUse * Y_DOC_BYTES_PER_ENCODED_BYTE + this.docBuilds.bytesWaiting
    for (const room of this.rooms.loaded()) {
      n += room.bytes
      for (const peer of room.peers) n += peer.socket.bufferedAmount()
    }
    return n
  }

  /**
   * Before a room loads: inside the budget, or idle rooms (no socket, no hold, nothing unwritten)
   * unload early, least recently used first, until it is; failing that the load is refused.
   */
  async makeRoom(): Promise<void> {
    if (this.budgetBytes <= 0 || this.used() < this.budgetBytes) return
    for (const room of this.rooms.idle()) {
      if (!room.idle || room.hasUnflushed) continue
      await this.rooms.unload(room)
      if (!this.rooms.isLoaded(room)) this.metrics.roomEvictions.inc()
      if (this.used() < this.budgetBytes) return
    }
    this.metrics.capacityRefusals.inc()
    throw new AppError('at_capacity', 'server at capacity', { retryAfterSec: CAPACITY_RETRY_SEC })
  }
}
