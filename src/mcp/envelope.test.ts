// The envelope of a JSON-RPC message read from its ends, never from inside its params.
import { describe, expect, it } from 'vitest'
import { envelopeOf } from './envelope.js'

const ends = (text: string) => envelopeOf(text.slice(0, 4096), text.slice(-4096))

describe('envelopeOf', () => {
  it('finds the id and method of both member orders', () => {
    const params = { name: 'edit_document', arguments: { content: 'x'.repeat(10_000), rows: [{ id: 99 }] } }
    expect(ends(JSON.stringify({ method: 'tools/call', params, jsonrpc: '2.0', id: 3 }))).toEqual({
      id: 3,
      method: 'tools/call',
    })
    expect(ends(JSON.stringify({ jsonrpc: '2.0', id: 'a"b', method: 'tools/call', params }))).toEqual({
      id: 'a"b',
      method: 'tools/call',
    })
  })

  it('takes no id from inside the params, and nothing from what is not an object', () => {
    expect(ends(JSON.stringify({ method: 'tools/call', params: { rows: [{ id: 99 }] } }))).toEqual({
      method: 'tools/call',
    })
    expect(ends('[{"id": 1}]')).toEqual({})
    expect(ends('{"method": "ping", "params": {"a": {"id": 5}}}')).toEqual({ method: 'ping' })
  })
})
