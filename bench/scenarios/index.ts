// The named scenarios with their bounded sizes (full and --quick), and how flags override them.
import { num, type Flags } from '../lib/args.js'
import { GC_NODE_ARGS } from '../lib/gc.js'
import type { RunningPeer, StartOptions } from '../lib/peers.js'
import { runCold, type ColdSize } from './cold.js'
import { runIdle, type IdleSize } from './idle.js'
import { largeTandemArgs, runLarge, type LargeSize } from './large.js'
import { runMemory, type MemorySize } from './memory.js'
import { runPresence, type PresenceSize } from './presence.js'
import { runStorm, type StormSize } from './storm.js'
import { runTraffic, type TrafficSize } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export const SCENARIOS = ['fanout', 'rooms', 'presence', 'storm', 'idle', 'cold'] as const
/** Run only when named (--scenario memory,large): not part of the default run nor of latest.* (issue 24). */
export const EXTRA_SCENARIOS = ['memory', 'large'] as const
export const ALL_SCENARIOS = [...SCENARIOS, ...EXTRA_SCENARIOS] as const
export type ScenarioName = (typeof ALL_SCENARIOS)[number]
/** The servers the extra scenarios compare (each with its own persistence). */
export const EXTRA_PEERS: readonly string[] = ['tandem', 'yws', 'hocuspocus']

export type Size = TrafficSize | PresenceSize | StormSize | IdleSize | ColdSize | MemorySize | LargeSize

const traffic = (
  rooms: number,
  clientsPerRoom: number,
  rate: number,
  awarenessHz: number,
  durationSec: number,
): TrafficSize => ({
  rooms,
  clientsPerRoom,
  rate,
  awarenessHz,
  durationSec,
  drainSec: 5,
  connectConcurrency: 50,
  warmupSec: 0,
})

/** One room of `observers`, `active` cursors at `hz`, the rest renewing every 15 s, two writers typing. */
const presence = (observers: number, active: number, awarenessHz: number, durationSec: number): PresenceSize => ({
  observers,
  active,
  awarenessHz,
  renewSec: 15,
  writers: 2,
  rate: 5,
  durationSec,
  drainSec: 5,
  connectConcurrency: 50,
})

const FULL: Record<ScenarioName, Size> = {
  fanout: traffic(1, 200, 1, 0, 10),
  rooms: traffic(1000, 4, 2, 0, 10),
  presence: presence(800, 20, 5, 20),
  storm: { rooms: 200, clients: 2000, docKB: 1024, concurrency: 100 } satisfies StormSize,
  idle: { connections: 5000, rooms: 500, concurrency: 200, holdSec: 5 } satisfies IdleSize,
  cold: { docs: 1000, docKB: 100, concurrency: 50 } satisfies ColdSize,
  memory: { docs: 1000, docKB: 78, concurrency: 50, rounds: 1 } satisfies MemorySize,
  large: { docMB: 50, batchKB: 1024, timeoutSec: 300, editEvery: 8, apply: 0 } satisfies LargeSize,
}

const QUICK: Record<ScenarioName, Size> = {
  fanout: traffic(1, 50, 1, 0, 4),
  rooms: traffic(100, 4, 2, 0, 4),
  presence: presence(100, 5, 5, 4),
  storm: { rooms: 20, clients: 200, docKB: 256, concurrency: 50 } satisfies StormSize,
  idle: { connections: 500, rooms: 50, concurrency: 100, holdSec: 2 } satisfies IdleSize,
  cold: { docs: 100, docKB: 50, concurrency: 25 } satisfies ColdSize,
  memory: { docs: 100, docKB: 78, concurrency: 50, rounds: 1 } satisfies MemorySize,
  large: { docMB: 5, batchKB: 1024, timeoutSec: 120, editEvery: 8, apply: 0 } satisfies LargeSize,
}

/** Named size, then --quick, then individual flags. */
export function sizeFor(name: ScenarioName, flags: Flags): Size {
  const base = { ...(flags.has('quick') ? QUICK : FULL)[name] } as Record<string, number>
  const set = (key: string, flag: string): void => {
    const v = num(flags, flag)
    if (v !== undefined && key in base) base[key] = v
  }
  set('rooms', 'rooms')
  set('clientsPerRoom', 'clients-per-room')
  set('clients', 'clients')
  set('connections', 'clients')
  set('rate', 'rate')
  set('awarenessHz', 'awareness-hz')
  set('observers', 'observers')
  set('active', 'active')
  set('renewSec', 'renew')
  set('writers', 'writers')
  set('durationSec', 'duration')
  set('drainSec', 'drain')
  set('warmupSec', 'warmup')
  set('docs', 'docs')
  set('docKB', 'doc-kb')
  set('concurrency', 'concurrency')
  set('connectConcurrency', 'concurrency')
  set('holdSec', 'hold')
  set('rounds', 'rounds')
  set('docMB', 'doc-mb')
  set('batchKB', 'batch-kb')
  set('timeoutSec', 'timeout')
  set('editEvery', 'edit-every')
  set('apply', 'apply')
  return base as unknown as Size
}

/** Whether a scenario needs the peers' own persistence (documents must survive a restart). */
export function needsPersistence(name: ScenarioName): boolean {
  return name === 'cold' || name === 'memory' || name === 'large'
}

/**
 * What a scenario adds to every server's start: the GC probe (memory, large), glibc's arena count
 * as Tandem's image sets it for every server alike (memory figures), and Tandem's limits raised for
 * a large document.
 */
export function startOptionsFor(name: ScenarioName, size: Size): Pick<StartOptions, 'nodeArgs' | 'env' | 'tandemArgs'> {
  switch (name) {
    case 'memory':
      return { nodeArgs: GC_NODE_ARGS, env: { MALLOC_ARENA_MAX: '2' } }
    case 'large':
      return { nodeArgs: GC_NODE_ARGS, env: { MALLOC_ARENA_MAX: '2' }, tandemArgs: largeTandemArgs(size as LargeSize) }
    default:
      return {}
  }
}

export async function runScenario(
  name: ScenarioName,
  peer: RunningPeer,
  size: Size,
  ctx: Ctx,
): Promise<ScenarioResult & { peer: RunningPeer }> {
  switch (name) {
    case 'fanout':
    case 'rooms':
      return { peer, ...(await runTraffic(name, peer, size as TrafficSize, ctx)) }
    case 'presence':
      return { peer, ...(await runPresence(peer, size as PresenceSize, ctx)) }
    case 'storm':
      return { peer, ...(await runStorm(peer, size as StormSize, ctx)) }
    case 'idle':
      return { peer, ...(await runIdle(peer, size as IdleSize, ctx)) }
    case 'cold':
      return runCold(peer, size as ColdSize, ctx)
    case 'memory':
      return runMemory(peer, size as MemorySize, ctx)
    case 'large':
      return runLarge(peer, size as LargeSize, ctx)
  }
}
