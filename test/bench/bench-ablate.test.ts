// bench/ablate.ts's variants: a real server composed with a part taken away (createServer's
// parts, bench/lib/ablations.ts), and the warning that says so at start.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { ablationParts, type Ablation } from '../../bench/lib/ablations.js'
import { createLogger } from '../../src/infra/log.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function harness(ablations: Ablation[], lines: string[] = []): Promise<Harness> {
  const log = createLogger('warn', { write: (line: string) => void lines.push(line) })
  const h = await startTandem({}, { api: false, log, parts: ablationParts(ablations, log) })
  cleanups.push(() => h.close())
  return h
}

/** Two synced editors of one document; `a` types, and `b` is waited for until it sees it. */
async function typeAcross(h: Harness, doc: string, text: string): Promise<void> {
  const t = await h.token('acme', doc)
  const a = new Y.Doc()
  const b = new Y.Doc()
  const pa = h.provider('acme', doc, t, a)
  const pb = h.provider('acme', doc, t, b)
  await Promise.all([synced(pa), synced(pb)])
  a.getText('t').insert(0, text)
  await eventually(() => expect(b.getText('t').toString()).toBe(text))
}

const stored = async (h: Harness, doc: string) => {
  await h.server.registry.loaded(`acme/${doc}/main`)?.flushed()
  return (await h.server.store.load(`acme/${doc}/main`)).updates.length
}

describe('ablated servers (bench/ablate.ts)', () => {
  it('relay: rooms relay updates between sockets and store nothing', async () => {
    const h = await harness(['relay'])
    await typeAcross(h, 'relay', 'hello')
    expect(await stored(h, 'relay')).toBe(0)
    expect(h.server.registry.loaded('acme/relay/main')!.encodeState()).toEqual(Uint8Array.of(0, 0))
  })

  it('nowrite: updates are broadcast as written, but nothing reaches LevelDB; a restart finds the document empty', async () => {
    const h = await harness(['nowrite'])
    await typeAcross(h, 'nowrite', 'gone')
    expect(await stored(h, 'nowrite')).toBe(0)
    await h.restart()
    const c = new Y.Doc()
    await synced(h.provider('acme', 'nowrite', await h.token('acme', 'nowrite'), c))
    expect(c.getText('t').toString()).toBe('')
  })

  it('without ablations the same edit is stored (the baseline of the two above)', async () => {
    const lines: string[] = []
    const h = await harness([], lines)
    await typeAcross(h, 'full', 'kept')
    expect(await stored(h, 'full')).toBeGreaterThan(0)
    expect(lines.join('')).not.toContain('ablations on')
  })

  it('nometrics: the server counts nothing and serves no process metrics', async () => {
    const h = await harness(['nometrics'])
    await typeAcross(h, 'nometrics', 'x')
    const text = await (await fetch(`${h.httpUrl}/metrics`)).text()
    expect(text).toContain('tandem_ws_messages_in_total')
    expect(text).not.toMatch(/^tandem_ws_messages_in_total\{.*\} [1-9]/m)
    expect(text).not.toContain('tandem_process_cpu_user_seconds_total')
    expect(await stored(h, 'nometrics')).toBeGreaterThan(0) // only metrics were taken away
  })

  it('any ablation: a warning at start names them', async () => {
    const lines: string[] = []
    await harness(['nosinks', 'nometrics'], lines)
    const warning = lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; ablations?: string[] })
      .find((l) => l.msg.includes('ablations on'))
    expect(warning).toMatchObject({ level: 40, ablations: ['nosinks', 'nometrics'] })
    expect(warning!.msg).toMatch(/updates are lost or unseen/)
  })
})
