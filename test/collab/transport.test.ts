// The collab transport: chosen at start by --transport (auto takes uWS where its binary loads for
// this Node ABI, ws elsewhere) and logged; and the idle timeout, the same on both (run this file
// with TANDEM_TEST_TRANSPORT=ws or uws): a client that answers the server's pings stays, a silent
// one is cut.
import { Writable } from 'node:stream'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import type { Config } from '../../src/infra/config.js'
import { createLogger } from '../../src/infra/log.js'
import { rawClient } from '../helpers/raw-client.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

/** The C library's version, [major, minor], or null off glibc */
function glibc(): [number, number] | null {
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header
  const m = /^(\d+)\.(\d+)/.exec(header.glibcVersionRuntime ?? '')
  return m ? [Number(m[1]), Number(m[2])] : null
}

/**
 * Whether one of the installed uWS builds has a binary that loads here (src/collab/listener/choose.ts):
 * @trufflesuite/uws-js-unofficial for Node ABIs 93, 108, 115 (Node 16-20); @btc-vision/uwebsockets.js
 * for 115, 127, 137, 141 (Node 20-25), built against glibc 2.38.
 */
function uwsLoads(): boolean {
  const abi = process.versions.modules
  if (['93', '108', '115'].includes(abi)) return true
  const libc = glibc()
  return ['127', '137', '141'].includes(abi) && libc !== null && (libc[0] > 2 || libc[1] >= 38)
}
const UWS = uwsLoads()

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Starts a server whose log lines are kept, and answers the transport it logged. */
async function startLogged(transport: Config['transport']): Promise<string> {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  h = await startTandem({ transport }, { api: false, log: createLogger('info', sink) })
  const chosen = lines
    .map((l) => JSON.parse(l) as { msg: string; transport?: string })
    .find((l) => l.msg.startsWith('collab transport'))
  return chosen?.transport ?? 'none logged'
}

/** A room round trip over the chosen transport: a token's socket opens and gets the sync step 1. */
async function roomAnswers(): Promise<void> {
  const t = await h!.token('acme', 'transport')
  const c = await rawClient(`${h!.wsUrl}/acme/transport?yauth=${t}`)
  await expect.poll(() => c.messages.length).toBeGreaterThan(0)
  c.ws.close()
}

describe('choosing the transport', () => {
  it('--transport ws serves rooms on ws and logs it', async () => {
    expect(await startLogged('ws')).toBe('ws')
    await roomAnswers()
  })

  it('--transport auto takes uWS where a binary of it loads for this Node ABI and C library, else ws', async () => {
    expect(await startLogged('auto')).toBe(UWS ? 'uws' : 'ws')
    await roomAnswers()
  })

  it.runIf(UWS)('--transport uws serves rooms on uWS and logs it', async () => {
    expect(await startLogged('uws')).toBe('uws')
    await roomAnswers()
  })

  it.skipIf(UWS)('--transport uws where no binary loads stops at start, naming the reason', async () => {
    await expect(startTandem({ transport: 'uws' }, { api: false })).rejects.toThrow(/uWebSockets.js cannot run here/)
  })
})

describe('idle sockets', () => {
  it('a client that answers pings stays open past the idle timeout; a silent one is cut', async () => {
    h = await startTandem({ idleTimeoutSec: 8 }, { api: false })
    const t = await h.token('acme', 'idle')
    const url = `${h.wsUrl}/acme/idle?yauth=${t}`
    const answering = await rawClient(url)
    // autoPong off: this client never answers a ping, and sends nothing
    const silent = new WebSocket(url, { autoPong: false })
    const silentClosed = new Promise<number>((resolve) => silent.on('close', (code) => resolve(code)))
    await new Promise((resolve, reject) => silent.once('open', resolve).once('error', reject))
    // cut without a close frame on both transports
    expect(await silentClosed).toBe(1006)
    expect(answering.ws.readyState).toBe(WebSocket.OPEN)
    answering.ws.close()
  }, 30_000)
})
