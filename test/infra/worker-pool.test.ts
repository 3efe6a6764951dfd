// Large documents are folded, read and rebuilt in worker threads; the pool (src/infra/worker-thread.ts)
// keeps a worker between jobs, so a thread's start is paid once, not per call. Proven on the real
// fold worker (collect-worker.ts): jobs reuse one thread, a failing job rejects and its worker is
// replaced, and an idle pooled worker never keeps a process alive.
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { foldParts } from '../../src/collab/room/collect.js'
import { pooledThreads } from '../../src/infra/worker-thread.js'

/** Parts of a document past the in-loop bound, so they fold in a worker. */
function largeParts(): { parts: Uint8Array[]; text: string } {
  const doc = new Y.Doc()
  const parts: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => parts.push(u))
  const text = 'x'.repeat(300 * 1024)
  doc.getText('t').insert(0, text)
  doc.getText('t').insert(0, 'head ')
  return { parts, text: `head ${text}` }
}

const textOf = (update: Uint8Array) => {
  const d = new Y.Doc()
  Y.applyUpdate(d, update)
  return d.getText('t').toString()
}

describe('the worker pool', () => {
  it('folds job after job in the same worker thread', async () => {
    const { parts, text } = largeParts()
    expect(textOf(await foldParts({ parts, collect: false }))).toBe(text)
    const first = pooledThreads()
    expect(first).toHaveLength(1)
    expect(textOf(await foldParts({ parts, collect: true }))).toBe(text)
    expect(pooledThreads()).toEqual(first)
  })

  it('rejects a job that fails in the worker and answers the next from a fresh worker', async () => {
    const { parts, text } = largeParts()
    await foldParts({ parts, collect: false })
    const before = pooledThreads()
    const garbage = new Uint8Array(300 * 1024).fill(0xff)
    await expect(foldParts({ parts: [garbage, garbage], collect: false })).rejects.toThrow()
    expect(textOf(await foldParts({ parts, collect: false }))).toBe(text)
    const after = pooledThreads()
    expect(after).toHaveLength(1)
    expect(after).not.toEqual(before)
  })

  it('lets a process exit as soon as its last job is done, idle worker and all', async () => {
    // were the idle worker ref'd, this child would live until the pool's 30 s idle stop
    const script = `
      import('${new URL('../../src/collab/room/collect.ts', import.meta.url).href}').then(async ({ foldParts }) => {
        const Y = await import('yjs')
        const doc = new Y.Doc(); const parts = []
        doc.on('update', (u) => parts.push(u))
        doc.getText('t').insert(0, 'x'.repeat(300 * 1024))
        const out = await foldParts({ parts, collect: false })
        console.log('folded', out.length > 300 * 1024)
      })`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'folded true' })
  }, 20_000)
})
