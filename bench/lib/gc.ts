// Garbage collection in a server under test, from the outside: the server runs with
// `--expose-gc --import bench/peers/gc-probe.mjs`; SIGUSR2 makes it collect and write its heap
// figures to a file this reads back. Also resets a process's peak RSS (VmHWM) for a window.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './peers.js'
import { memory, type Memory } from './proc.js'

export const GC_PROBE = join(ROOT, 'bench/peers/gc-probe.mjs')
/** Node flags that load the probe into a server. */
export const GC_NODE_ARGS = ['--expose-gc', '--import', GC_PROBE]

export interface HeapFigures {
  /** false when the server ran without --expose-gc (figures then are without a collection) */
  gc: boolean
  gcMs: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * Asks the server to collect garbage (twice in a row, `settleMs` apart, so memory freed by the
 * first and released by V8 in the background has left RSS), then reads RSS from /proc.
 * Returns null heap figures when the probe did not answer within 15 s (no probe loaded).
 */
export async function collectAndRead(pid: number, settleMs = 1000): Promise<{ heap: HeapFigures | null; mem: Memory }> {
  const file = join(tmpdir(), `tandem-bench-gc-${pid}.json`)
  let heap: HeapFigures | null = null
  for (let round = 0; round < 2; round++) {
    rmSync(file, { force: true })
    process.kill(pid, 'SIGUSR2')
    const deadline = Date.now() + 15_000
    while (!existsSync(file) && Date.now() < deadline) await sleep(20)
    try {
      heap = JSON.parse(readFileSync(file, 'utf8')) as HeapFigures
    } catch {
      heap = null
    }
    await sleep(settleMs)
  }
  rmSync(file, { force: true })
  return { heap, mem: memory(pid) }
}

/** Resets VmHWM to the current RSS (Linux >= 4.0, same user); false where that is not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}
