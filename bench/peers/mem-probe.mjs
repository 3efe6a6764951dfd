// Preloaded into a server under test (`node --import bench/peers/mem-probe.mjs`) by
// bench/storm-memory.ts: appends the process's own memory figures (V8 heap, external, array
// buffers; RSS and its peak from /proc) as one JSON line every TANDEM_MEM_PROBE_MS to the file
// TANDEM_MEM_PROBE. Works for every peer, so the figures compare like with like.
import { appendFileSync, readFileSync } from 'node:fs'

const file = process.env.TANDEM_MEM_PROBE
const every = Number(process.env.TANDEM_MEM_PROBE_MS ?? 250)

function statusKb(status, name) {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
  return m ? Number(m[1]) * 1024 : 0
}

if (file) {
  const timer = setInterval(() => {
    const m = process.memoryUsage()
    const status = readFileSync('/proc/self/status', 'utf8')
    const line = {
      t: Date.now(),
      rss: statusKb(status, 'VmRSS'),
      hwm: statusKb(status, 'VmHWM'),
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    }
    appendFileSync(file, JSON.stringify(line) + '\n')
  }, every)
  timer.unref()
}
