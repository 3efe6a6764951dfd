// Close reasons on the ws transport: ws refuses a reason over 123 bytes (RangeError), uWS takes any.
import { describe, expect, it } from 'vitest'
import { clipReason } from './peer-socket.js'

describe('clipReason', () => {
  it('keeps a reason of up to 123 bytes and cuts a longer one on a character boundary', () => {
    expect(clipReason('token expired')).toBe('token expired')
    const long = 'é'.repeat(100) // 200 bytes
    const cut = clipReason(long)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123)
    expect(cut).toBe('é'.repeat(60))
    expect(clipReason('x'.repeat(123))).toBe('x'.repeat(123))
  })
})
