// Server-side resource figures from /proc: CPU seconds (utime + stime) and resident memory.
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

let clkTck = 0
function ticksPerSecond(): number {
  if (!clkTck) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      clkTck = 100
    }
  }
  return clkTck
}

/** CPU seconds used so far by the process (all its threads). */
export function cpuSeconds(pid: number): number {
  return statCpu(`/proc/${pid}/stat`)
}

/**
 * CPU seconds of the process's live threads, from each one's schedstat (run time in ns, where
 * /proc stat counts 10 ms ticks: a call of 15 ms reads as 10 or 20). A thread that exits between
 * two readings takes its share with it: for calls served by long-lived threads (the warm workers).
 */
export function threadsCpuSeconds(pid: number): number {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // exited while read
    }
  }
  return ns / 1e9
}

/**
 * CPU seconds of the main thread (JS and the uWS/libuv event loop) apart from all other threads
 * (libuv pool: LevelDB, crypto, fs; V8 GC helpers). Shows where a server's CPU goes.
 */
export function mainThreadCpuSeconds(pid: number): number {
  try {
    return statCpu(`/proc/${pid}/task/${pid}/stat`)
  } catch {
    return NaN
  }
}

function statCpu(path: string): number {
  const stat = readFileSync(path, 'utf8')
  // Field 2 (comm) may hold spaces: split after its closing parenthesis.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  return (utime + stime) / ticksPerSecond()
}

export interface Memory {
  /** resident set, bytes */
  rss: number
  /** peak resident set since start, bytes */
  hwm: number
  /**
   * anonymous resident memory (heap, native allocations), bytes: VmRSS less file-backed pages,
   * such as the LevelDB table files LevelDB maps into the process (page cache the kernel reclaims)
   */
  anon: number
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
    return m ? Number(m[1]) * 1024 : 0
  }
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon') }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Samples RSS every `everyMs` to report a mean and a peak next to VmHWM. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined
  peak = 0
  private sum = 0
  private n = 0

  constructor(
    private readonly pid: number,
    private readonly everyMs = 250,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), this.everyMs)
    this.timer.unref()
    this.sample()
  }

  private sample(): void {
    try {
      const { rss } = memory(this.pid)
      this.peak = Math.max(this.peak, rss)
      this.sum += rss
      this.n++
    } catch {
      // process gone: the scenario reports it
    }
  }

  stop(): { mean: number; peak: number } {
    if (this.timer) clearInterval(this.timer)
    this.sample()
    return { mean: this.n ? this.sum / this.n : 0, peak: this.peak }
  }
}

export function machineFacts(): { nproc: number; cpu: string; node: string; memTotal: string; kernel: string } {
  let cpu = 'unknown'
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m) cpu = m[1]!.trim()
  } catch {
    // not Linux
  }
  let memTotal = 'unknown'
  try {
    const m = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))
    if (m) memTotal = `${Math.round(Number(m[1]) / 1024 / 1024)} GiB`
  } catch {
    // not Linux
  }
  let nproc = 0
  try {
    nproc = Number(execFileSync('nproc', ['--all'], { encoding: 'utf8' }).trim())
  } catch {
    nproc = 0
  }
  let kernel = ''
  try {
    kernel = execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim()
  } catch {
    kernel = ''
  }
  return { nproc, cpu, node: process.version, memTotal, kernel }
}

/** Busy CPU seconds (everything but idle and iowait) of the given cores, from /proc/stat. */
export function coreBusySeconds(cores: number[]): number {
  let ticks = 0
  try {
    const stat = readFileSync('/proc/stat', 'utf8')
    for (const core of cores) {
      const m = new RegExp(`^cpu${core} (.+)$`, 'm').exec(stat)
      if (!m) continue
      const f = m[1]!.trim().split(/\s+/).map(Number)
      // user nice system idle iowait irq softirq steal
      ticks += (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0)
    }
  } catch {
    return NaN
  }
  return ticks / ticksPerSecond()
}

/**
 * How much of the server's cores other processes used during a window: busy time of those cores
 * minus the server's own CPU time, per second of wall time. On a shared machine this is the noise
 * figure: 0 is a quiet core, 0.5 means half a core went to someone else.
 */
export class ForeignLoad {
  private busy0 = 0
  private t0 = 0
  constructor(private readonly cores: number[] | null) {}

  start(): void {
    if (!this.cores) return
    this.busy0 = coreBusySeconds(this.cores)
    this.t0 = performance.now()
  }

  /** `ownCpuSec`: the server's CPU seconds over the same window. */
  stop(ownCpuSec: number): number | null {
    if (!this.cores) return null
    const wall = (performance.now() - this.t0) / 1000
    if (wall <= 0) return null
    const foreign = (coreBusySeconds(this.cores) - this.busy0 - ownCpuSec) / wall
    return Math.round(Math.max(0, foreign) * 100) / 100
  }
}

/** Total size and latest mtime of the files under `dir` (a fingerprint of what is on disk). */
function dirFingerprint(dir: string): string {
  let bytes = 0
  let mtime = 0
  let files = 0
  const walk = (d: string): void => {
    let entries
    try {
      entries = readdirSync(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else {
        try {
          const st = statSync(p)
          bytes += st.size
          mtime = Math.max(mtime, st.mtimeMs)
          files++
        } catch {
          // removed meanwhile (a LevelDB compaction)
        }
      }
    }
  }
  walk(dir)
  return `${files}:${bytes}:${mtime}`
}

/**
 * Waits until nothing under `dir` changed for `quietMs` (at most `maxMs`): a server's background
 * writes (y-leveldb's queue, debounced stores, LevelDB compactions) have landed. Returns the ms waited.
 */
export async function waitForQuietDir(dir: string, quietMs = 3000, maxMs = 180_000): Promise<number> {
  const t0 = Date.now()
  let last = dirFingerprint(dir)
  let since = Date.now()
  while (Date.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, 250))
    const cur = dirFingerprint(dir)
    if (cur !== last) {
      last = cur
      since = Date.now()
    } else if (Date.now() - since >= quietMs) break
  }
  return Date.now() - t0
}
