import { describe, expect, it } from 'vitest'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { checkState, joinEntries, readAwarenessEntries, removalEntry, StateTooLarge } from './awareness-entries.js'
import { ProtocolError } from './messages.js'

/** Two clients' states as y-protocols encodes them, and the awareness that holds them. */
function twoClients() {
  const a = new awarenessProtocol.Awareness(new Y.Doc())
  const b = new awarenessProtocol.Awareness(new Y.Doc())
  a.setLocalState({ user: { name: 'Ann', color: '#f00' }, cursor: { anchor: 3 } })
  b.setLocalState({ user: { name: 'Bö ☃' } })
  awarenessProtocol.applyAwarenessUpdate(a, awarenessProtocol.encodeAwarenessUpdate(b, [b.clientID]), 'test')
  return { a, b, update: awarenessProtocol.encodeAwarenessUpdate(a, [a.clientID, b.clientID]) }
}

describe('awareness entries', () => {
  it("reads ids and clocks, and joining the entries gives back y-protocols' bytes exactly", () => {
    const { a, b, update } = twoClients()
    const entries = readAwarenessEntries(update)
    expect(entries.map((e) => [e.clientId, e.clock, e.removed])).toEqual([
      [a.clientID, 1, false],
      [b.clientID, 1, false],
    ])
    expect(
      joinEntries(
        entries.map((e) => e.bytes),
        2,
      ),
    ).toEqual(update)
    for (const e of entries) expect(() => checkState(e)).not.toThrow()
  })

  it('a removal entry is what y-protocols sends for a removed client', () => {
    const { a, b } = twoClients()
    awarenessProtocol.removeAwarenessStates(a, [b.clientID], 'test')
    const removal = removalEntry(b.clientID, 1) // the last clock seen: a null state at it removes
    expect(joinEntries([removal.bytes], 1)).toEqual(awarenessProtocol.encodeAwarenessUpdate(a, [b.clientID]))
    expect(readAwarenessEntries(joinEntries([removal.bytes], 1)!)[0]).toMatchObject({
      clientId: b.clientID,
      clock: 1,
      removed: true,
    })
  })

  it('refuses truncated updates, trailing bytes, states over the bound, and (checked) states that are not JSON', () => {
    const { update } = twoClients()
    expect(() => readAwarenessEntries(update.subarray(0, update.length - 1))).toThrow(ProtocolError)
    expect(() => readAwarenessEntries(Uint8Array.from([...update, 0]))).toThrow(ProtocolError)
    expect(() => readAwarenessEntries(Uint8Array.from([200, 1, 1]))).toThrow(ProtocolError) // a count past the end
    expect(() => readAwarenessEntries(update, 20)).toThrow(StateTooLarge)
    const notJson = readAwarenessEntries(Uint8Array.from([1, 7, 1, 3, 0x7b, 0x7b, 0x7d]))[0]! // "{{}"
    expect(() => checkState(notJson)).toThrow(ProtocolError)
  })

  it('a spaced null counts as a removal once its state is checked', () => {
    const e = readAwarenessEntries(Uint8Array.from([1, 7, 2, 5, 0x20, 0x6e, 0x75, 0x6c, 0x6c]))[0]! // " null"
    expect(e.removed).toBe(false)
    checkState(e)
    expect(e.removed).toBe(true)
  })
})
