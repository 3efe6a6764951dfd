// The named scenarios with their bounded sizes (full and --quick), and how flags override them.
import { num, type Flags } from '../lib/args.js'
import type { RunningPeer } from '../lib/peers.js'
import { runCold, type ColdSize } from './cold.js'
import { runIdle, type IdleSize } from './idle.js'
import { runStorm, type StormSize } from './storm.js'
import { runTraffic, type TrafficSize } from './traffic.js'
import type { Ctx, ScenarioResult } from './types.js'

export const SCENARIOS = ['fanout', 'rooms', 'presence', 'storm', 'idle', 'cold'] as const
export type ScenarioName = (typeof SCENARIOS)[number]

export type Size = TrafficSize | StormSize | IdleSize | ColdSize

const traffic = (rooms: number, clientsPerRoom: number, rate: number, awarenessHz: number, durationSec: number): TrafficSize => ({
  rooms,
  clientsPerRoom,
  rate,
  awarenessHz,
  durationSec,
  drainSec: 5,
  connectConcurrency: 50,
})

const FULL: Record<ScenarioName, Size> = {
  fanout: traffic(1, 200, 1, 0, 10),
  rooms: traffic(1000, 4, 2, 0, 10),
  presence: traffic(1, 200, 1, 1, 10),
  storm: { rooms: 200, clients: 2000, docKB: 1024, concurrency: 100 } satisfies StormSize,
  idle: { connections: 5000, rooms: 500, concurrency: 200, holdSec: 5 } satisfies IdleSize,
  cold: { docs: 1000, docKB: 100, concurrency: 50 } satisfies ColdSize,
}

const QUICK: Record<ScenarioName, Size> = {
  fanout: traffic(1, 50, 1, 0, 4),
  rooms: traffic(100, 4, 2, 0, 4),
  presence: traffic(1, 50, 1, 1, 4),
  storm: { rooms: 20, clients: 200, docKB: 256, concurrency: 50 } satisfies StormSize,
  idle: { connections: 500, rooms: 50, concurrency: 100, holdSec: 2 } satisfies IdleSize,
  cold: { docs: 100, docKB: 50, concurrency: 25 } satisfies ColdSize,
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
  set('durationSec', 'duration')
  set('drainSec', 'drain')
  set('docs', 'docs')
  set('docKB', 'doc-kb')
  set('concurrency', 'concurrency')
  set('connectConcurrency', 'concurrency')
  set('holdSec', 'hold')
  return base as unknown as Size
}

/** Whether a scenario needs the peers' own persistence (documents must survive a restart). */
export function needsPersistence(name: ScenarioName): boolean {
  return name === 'cold'
}

export async function runScenario(name: ScenarioName, peer: RunningPeer, size: Size, ctx: Ctx): Promise<ScenarioResult & { peer: RunningPeer }> {
  switch (name) {
    case 'fanout':
    case 'rooms':
    case 'presence':
      return { peer, ...(await runTraffic(name, peer, size as TrafficSize, ctx)) }
    case 'storm':
      return { peer, ...(await runStorm(peer, size as StormSize, ctx)) }
    case 'idle':
      return { peer, ...(await runIdle(peer, size as IdleSize, ctx)) }
    case 'cold':
      return runCold(peer, size as ColdSize, ctx)
  }
}
