import { describe, expect, it } from 'vitest'
import { TokenRefused } from '../../auth/capability.js'
import { AppError } from '../../infra/errors.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import { HeldFrames } from './held-frames.js'
import { refusalOf } from './refusal.js'

describe('refusalOf', () => {
  it('maps through the error table: a token as tersely as its 401, a full room 1013, anything else 1011', () => {
    expect(refusalOf(new TokenRefused('invalid_token', 'bad signature'))).toEqual({
      code: CLOSE.tokenExpired,
      reason: 'token invalid',
    })
    expect(refusalOf(new AppError('room_full', 'room is full'))).toEqual({
      code: CLOSE.tryAgainLater,
      reason: 'room is full',
    })
    expect(refusalOf(new AppError('doc_deleted', 'document deleted'))).toEqual({
      code: CLOSE.docDeleted,
      reason: 'document deleted',
    })
    expect(refusalOf(new Error('secret detail'))).toEqual({ code: CLOSE.internalError, reason: 'internal error' })
  })

  it('cuts a reason to what a close frame carries (123 bytes)', () => {
    const { reason } = refusalOf(new AppError('unavailable', 'x'.repeat(300)))
    expect(reason).toBe('x'.repeat(120))
  })
})

describe('HeldFrames', () => {
  it('holds in order up to its bound, counting an overhead per frame, then refuses', () => {
    const held = new HeldFrames<string>(2 * (10 + 64))
    expect(held.push('a', 10)).toBe(true)
    expect(held.push('b', 10)).toBe(true)
    expect(held.push('c', 0)).toBe(false)
    expect(held.take().map((h) => h.frame)).toEqual(['a', 'b'])
    expect(held.take()).toEqual([])
  })
})
