// Smoke test of the bench harness (not a benchmark): a tiny traffic run against the y-websocket
// reference server and Hocuspocus proves the raw client, both framings, content marks and the
// stats, in a few seconds. Full bench runs stay out of the test suite.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { largeDocBatches, plainTextDoc, realisticDoc } from '../../bench/lib/docs.js'
import { GC_NODE_ARGS, collectAndRead } from '../../bench/lib/gc.js'
import { MarkWriter, readMarks } from '../../src/loadtest/marks.js'
import { startPeer, type PeerName } from '../../bench/lib/peers.js'
import { loadUws } from '../../src/collab/listener/uws-build.js'
import { markdown, ratio, svg, type BenchReport } from '../../bench/lib/report.js'
import { Samples } from '../../src/loadtest/stats.js'
import { slope } from '../../bench/scenarios/soak.js'
import { runTraffic } from '../../bench/scenarios/traffic.js'
import { decodeAwareness, encodeAwarenessState } from '@tandem/protocol/awareness-entries'
import { Framing } from '@tandem/protocol/client-framing'

describe('bench harness', () => {
  it('computes exact percentiles', () => {
    const s = new Samples()
    for (let i = 1; i <= 2000; i++) s.add(i)
    expect(s.summary()).toMatchObject({ n: 2000, p50: 1000, p99: 1980, max: 2000 })
  })

  it('reads its marks back out of updates and frames both dialects', () => {
    const w = new MarkWriter(7)
    const u = w.write(3, 1234.5)
    expect(readMarks(u)).toEqual([{ sender: 7, seq: 3, ts: 1234.5 }])
    for (const dialect of ['yws', 'hocuspocus'] as const) {
      const f = new Framing(dialect, 'org/doc')
      expect(f.decode(f.update(u))).toEqual({ kind: 'update', payload: u })
      const aw = encodeAwarenessState(5, 2, { b: 1 })
      expect(f.decode(f.awareness(aw))).toEqual({ kind: 'awareness', payload: aw })
    }
    expect(decodeAwareness(encodeAwarenessState(5, 2, { b: 1 }))).toEqual([{ clientId: 5, clock: 2, state: { b: 1 } }])
    w.destroy()
  })

  it('soak: the slope is the least-squares fit, and the soak load keeps documents the same size', () => {
    expect(
      slope([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toBe(2)
    expect(
      slope([
        { x: 0, y: 10 },
        { x: 1, y: 12 },
        { x: 2, y: 10 },
        { x: 3, y: 12 },
      ]),
    ).toBeCloseTo(0.4)
    expect(slope([{ x: 1, y: 1 }])).toBeNull()
    const w = new MarkWriter(3)
    w.overwrite()
    const first = w.diff(new Uint8Array([0])).length
    for (let i = 0; i < 5_000; i++) w.overwrite()
    expect(w.diff(new Uint8Array([0])).length).toBeLessThan(first + 64)
    w.destroy()
  })

  // the relay is uWS itself (bench/peers/uws-relay.mjs): it runs where a uWS build loads, and only there
  const uwsHere = 'native' in loadUws()
  for (const name of ['yws', 'hocuspocus', 'relay'] as PeerName[]) {
    it.runIf(name !== 'relay' || uwsHere)(
      `delivers every update and awareness state through ${name}${name === 'relay' ? ' (uWS only)' : ''}`,
      async () => {
        const dataDir = mkdtempSync(join(tmpdir(), `bench-smoke-${name}-`))
        const peer = await startPeer(name, { dataDir, persistent: false, cpus: null })
        try {
          const res = await runTraffic(
            'smoke',
            peer,
            {
              rooms: 2,
              clientsPerRoom: 3,
              rate: 10,
              awarenessHz: 5,
              durationSec: 1,
              drainSec: 3,
              connectConcurrency: 6,
            },
            { progress: () => {} },
          )
          const m = res.metrics
          expect(m.connectFailures).toBe(0)
          expect(m.sent).toBeGreaterThan(30)
          expect(m.delivered).toBe(m.expected)
          expect(m.deliveryRatio).toBe(1)
          expect(m.awarenessRatio).toBe(1)
          expect(m.latencyP50Ms).toBeGreaterThan(0)
          expect(m.latencyP99Ms!).toBeGreaterThanOrEqual(m.latencyP50Ms!)
          expect(m.serverCpuSec).toBeGreaterThanOrEqual(0)
          expect(m.serverRssMB).toBeGreaterThan(10)
          const report: BenchReport = {
            meta: {
              startedAt: 'now',
              finishedAt: 'now',
              command: 'test',
              machine: { nproc: 2, cpu: 'x', node: 'v20', memTotal: '1 GiB', kernel: 'k' },
              pinning: 'none',
              tandemEntry: '-',
              notes: [],
            },
            runs: [
              {
                scenario: 'fanout',
                peer: name,
                version: peer.version,
                size: {},
                metrics: m,
                notes: [],
                startedAt: 'now',
                durationSec: 1,
              },
            ],
          }
          expect(markdown(report)).toContain('| peer |')
          expect(svg(report)).toContain('<svg')
        } finally {
          await peer.stop()
          rmSync(dataDir, { recursive: true, force: true })
        }
      },
    )
  }

  it('reports ratios Tandem/peer only when both sides have a figure', () => {
    expect(ratio(2, 4)).toBe(0.5)
    expect(ratio(null, 4)).toBeNull()
    expect(ratio(2, 0)).toBeNull()
  })

  it('issue 24 documents: deterministic, about the size asked, and the large one replays whole', () => {
    const a = realisticDoc(16 * 1024)
    const b = realisticDoc(16 * 1024)
    expect(Buffer.from(a.update).equals(Buffer.from(b.update))).toBe(true)
    expect(a.update.length).toBeGreaterThanOrEqual(16 * 1024)
    expect(a.update.length).toBeLessThan(24 * 1024)
    expect(a.items).toBeGreaterThan(500) // edited: many structs, unlike the plain one
    const p = plainTextDoc(a.update.length)
    expect(p.items).toBe(1)
    const l = largeDocBatches(1024 * 1024, 128 * 1024)
    const d = new Y.Doc()
    for (const u of l.batches) Y.applyUpdate(d, u)
    expect(Buffer.from(Y.encodeStateAsUpdate(d)).equals(Buffer.from(l.update))).toBe(true)
    expect(d.getText('body').length).toBe(l.chars)
    d.destroy()
  })

  it('the GC probe collects in a server on SIGUSR2 and reports its heap', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-smoke-gc-'))
    const peer = await startPeer('yws', { dataDir, persistent: false, cpus: null, nodeArgs: GC_NODE_ARGS })
    try {
      const { heap, mem } = await collectAndRead(peer.pid, 50)
      expect(heap?.gc).toBe(true)
      expect(heap!.heapUsed).toBeGreaterThan(1024 * 1024)
      expect(mem.rss).toBeGreaterThan(10 * 1024 * 1024)
    } finally {
      await peer.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
