import { describe, expect, it } from 'vitest'
import { SeqTracker } from './seq-tracker.js'

describe('SeqTracker', () => {
  it('advances the watermark over contiguous ranges and ignores duplicates', () => {
    const t = new SeqTracker(4)
    t.add(5, 6)
    t.add(3, 6) // duplicate
    expect(t.watermark).toBe(6)
    expect(t.hasHole).toBe(false)
  })

  it('holds ranges above a hole until the hole is filled, in any order', () => {
    const t = new SeqTracker(0)
    t.add(4, 5)
    t.add(9, 9)
    expect(t.watermark).toBe(0)
    expect(t.hasHole).toBe(true)
    expect(t.highest).toBe(9)
    t.add(1, 3)
    expect(t.watermark).toBe(5)
    t.add(7, 8)
    expect(t.watermark).toBe(5)
    t.add(6, 6)
    expect(t.watermark).toBe(9)
    expect(t.hasHole).toBe(false)
  })

  it('merges overlapping and adjacent ranges above the watermark', () => {
    const t = new SeqTracker(0)
    t.add(10, 12)
    t.add(13, 15)
    t.add(11, 20)
    t.add(30, 31)
    t.add(2, 9)
    expect(t.watermark).toBe(0)
    t.add(1, 1)
    expect(t.watermark).toBe(20)
    expect(t.highest).toBe(31)
  })

  it('advanceTo (a resync) jumps the watermark and keeps what lies beyond it', () => {
    const t = new SeqTracker(2)
    t.add(5, 6)
    t.add(9, 12)
    t.advanceTo(10)
    expect(t.watermark).toBe(12)
    expect(t.hasHole).toBe(false)
    t.advanceTo(3) // older than the watermark: nothing changes
    expect(t.watermark).toBe(12)
    t.add(20, 20)
    t.advanceTo(19)
    expect(t.watermark).toBe(20)
  })
})
