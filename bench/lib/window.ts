// What a scenario measures of the server over its measurement window, started and stopped the same
// way by every scenario: its CPU (all threads and the main thread), other processes' load on its
// cores, the load generator's own CPU, and its RSS (sampled, and at the end).
import { now } from '../../src/loadtest/marks.js'
import { ForeignLoad, RssSampler, alive, cpuSeconds, mainThreadCpuSeconds, memory, type Memory } from './proc.js'

export interface WindowFigures {
  serverAlive: boolean
  /** server CPU seconds over the window, all threads (NaN when it died) */
  cpuSec: number
  /** the same for its main thread */
  mainSec: number
  /** share of the server's cores other processes used, or null when unpinned */
  foreignLoad: number | null
  /** the load generator's CPU over the window, as a share of one core */
  loadCpu: number
  wallSec: number
  rss: { mean: number; peak: number }
  memEnd: Pick<Memory, 'rss' | 'hwm'>
}

export class ServerWindow {
  private readonly cpu0: number
  private readonly main0: number
  private readonly foreign: ForeignLoad
  private readonly load0 = process.cpuUsage()
  private readonly sampler: RssSampler
  /** when the window opened (the marks' clock) */
  readonly start: number

  constructor(
    private readonly pid: number,
    serverCores: number[] | null,
  ) {
    this.cpu0 = cpuSeconds(pid)
    this.main0 = mainThreadCpuSeconds(pid)
    this.foreign = new ForeignLoad(serverCores)
    this.foreign.start()
    this.sampler = new RssSampler(pid)
    this.sampler.start()
    this.start = now()
  }

  stop(): WindowFigures {
    const serverAlive = alive(this.pid)
    const cpuSec = serverAlive ? cpuSeconds(this.pid) - this.cpu0 : NaN
    const mainSec = serverAlive ? mainThreadCpuSeconds(this.pid) - this.main0 : NaN
    const foreignLoad = this.foreign.stop(cpuSec)
    const load = process.cpuUsage(this.load0)
    const wallSec = (now() - this.start) / 1000
    const rss = this.sampler.stop()
    const memEnd = serverAlive ? memory(this.pid) : { rss: 0, hwm: 0 }
    return {
      serverAlive,
      cpuSec,
      mainSec,
      foreignLoad,
      loadCpu: (load.user + load.system) / 1e6 / wallSec,
      wallSec,
      rss,
      memEnd,
    }
  }
}
