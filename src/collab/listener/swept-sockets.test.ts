import { afterEach, describe, expect, it, vi } from 'vitest'
import { SweptSockets } from './swept-sockets.js'

describe('SweptSockets', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sweeps every second only while a socket is open', () => {
    vi.useFakeTimers()
    const checked: string[] = []
    const sockets = new SweptSockets<string>()
    sockets.sweep((ws) => checked.push(ws))
    expect(vi.getTimerCount()).toBe(0) // nothing open: no timer
    sockets.add('a').add('b')
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(1000)
    expect(checked).toEqual(['a', 'b'])
    sockets.delete('a')
    sockets.delete('b')
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(5000)
    expect(checked).toEqual(['a', 'b'])
    sockets.add('c')
    vi.advanceTimersByTime(1000)
    expect(checked).toEqual(['a', 'b', 'c'])
    sockets.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})
