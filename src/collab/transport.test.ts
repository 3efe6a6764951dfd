// LoopTransport, the ws transport's broadcast: every subscriber gets the frame, Hocuspocus channels
// behind their document's name, framed once per name and publish (not once per receiver).
import { describe, expect, it } from 'vitest'
import { CLOSE } from '@tandem/protocol/close-codes'
import { encodeName, withName } from '@tandem/protocol/hocuspocus'
import { DocChannel } from './hocuspocus/channel.js'
import { LoopTransport, type PeerSocket } from './transport.js'

/** A socket that keeps what it was sent. */
function capture(): PeerSocket & { got: Uint8Array[] } {
  const got: Uint8Array[] = []
  return { got, send: (b) => got.push(b) > 0, close: () => undefined, bufferedAmount: () => 0 }
}

const owner = { peerClosed: () => undefined }
const channel = (base: PeerSocket, name: string) => new DocChannel(base, name, encodeName(name), owner)

describe('LoopTransport', () => {
  it('frames a broadcast once per Hocuspocus name, skips the sender, and sends plain sockets the bytes as they are', () => {
    const t = new LoopTransport()
    const [a, b, c, plain] = [capture(), capture(), capture(), capture()]
    const sender = channel(capture(), 'acme/doc')
    const chA = channel(a, 'acme/doc')
    const chB = channel(b, 'acme/doc')
    const chC = channel(c, 'acme/doc\u0000s2')
    for (const s of [sender, chA, chB, chC, plain]) t.join(s, 'acme/doc')
    const update = Uint8Array.of(0, 2, 1, 2, 3)
    t.publish('acme/doc', update, sender)

    expect(a.got).toEqual([withName(encodeName('acme/doc'), update)])
    expect(b.got[0]).toBe(a.got[0]) // the same frame, not a copy per receiver
    expect(c.got).toEqual([withName(encodeName('acme/doc\u0000s2'), update)])
    expect(plain.got).toEqual([update])
    expect((sender.base as ReturnType<typeof capture>).got).toEqual([])
  })

  it('sends nothing to a closed channel', () => {
    const t = new LoopTransport()
    const a = capture()
    const ch = channel(a, 'acme/doc')
    t.join(ch, 'acme/doc')
    ch.close(CLOSE.goingAway, 'done')
    t.publish('acme/doc', Uint8Array.of(1))
    expect(a.got).toEqual([])
  })
})
