import { describe, expect, it } from 'vitest'
import { createMetrics } from './metrics.js'

/** Drives one counter, gauge and histogram the way the server does, and reads them back. */
async function recordSome(m: ReturnType<typeof createMetrics>) {
  m.messagesIn.inc({ type: 'update' })
  m.bytesIn.inc(10)
  m.connections.inc({ protocol: 'y-websocket' })
  m.rooms.set(3)
  m.updateLatency.observe(0.002)
  m.persistLatency.startTimer()()
  await m.withDefaults()
  return {
    messagesIn: (await m.messagesIn.get()).values.reduce((n, v) => n + v.value, 0),
    rooms: (await m.rooms.get()).values[0]?.value ?? 0,
    latencyCount:
      (await m.updateLatency.get()).values.find((v) => v.metricName === 'tandem_update_apply_seconds_count')?.value ??
      0,
    persistCount:
      (await m.persistLatency.get()).values.find((v) => v.metricName === 'tandem_persist_seconds_count')?.value ?? 0,
    text: await m.registry.metrics(),
  }
}

describe('metrics', () => {
  it('record what the server counts, with the process defaults', async () => {
    const r = await recordSome(createMetrics())
    expect(r).toMatchObject({ messagesIn: 1, rooms: 3, latencyCount: 1, persistCount: 1 })
    expect(r.text).toContain('tandem_process_cpu_user_seconds_total')
  })
})
