// Preloaded into a server under test (`node --expose-gc --import bench/peers/gc-probe.mjs ...`) by
// the memory and large scenarios: on SIGUSR2 the main thread runs two full garbage collections and
// writes its memory figures (V8 heap, external, array buffers, RSS) as JSON to
// $TMPDIR/tandem-bench-gc-<pid>.json, so the bench reads RSS after a GC, the same way for every peer.
// Without --expose-gc it still answers, with "gc": false.
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) {
  process.on('SIGUSR2', () => {
    const t0 = performance.now()
    const gc = typeof globalThis.gc === 'function' ? globalThis.gc : null
    if (gc) {
      gc()
      gc()
    }
    const m = process.memoryUsage()
    const line = { t: Date.now(), gc: Boolean(gc), gcMs: performance.now() - t0, ...m }
    writeFileSync(join(tmpdir(), `tandem-bench-gc-${process.pid}.json`), JSON.stringify(line))
  })
}
