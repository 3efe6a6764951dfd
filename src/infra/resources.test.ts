import { describe, expect, it } from 'vitest'
import { Resources } from './resources.js'

describe('Resources', () => {
  it('closes in reverse order of registration, once, however often close() is called', async () => {
    const closed: string[] = []
    const r = new Resources()
    const pool = r.add('pool', { name: 'pool' }, (p) => void closed.push(p.name))
    r.defer('timer', () => void closed.push('timer'))
    r.add('listener', 'listener', async (l) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      closed.push(l)
    })
    expect(pool.name).toBe('pool')
    await Promise.all([r.close(), r.close()])
    await r.close()
    expect(closed).toEqual(['listener', 'timer', 'pool'])
  })

  it('runs every close when one fails and rethrows the first failure naming its resource', async () => {
    const closed: string[] = []
    const r = new Resources()
    r.defer('storage', () => void closed.push('storage'))
    r.defer('bus', () => {
      throw new Error('redis gone')
    })
    r.defer('sockets', () => void closed.push('sockets'))
    await expect(r.close()).rejects.toThrow('closing bus failed: redis gone')
    expect(closed).toEqual(['sockets', 'storage'])
  })

  it('refuses a registration once closing has begun', async () => {
    const r = new Resources()
    await r.close()
    expect(() => r.defer('late', () => {})).toThrow('cannot register late')
  })
})
