import { describe, expect, it } from 'vitest'
import { AppError } from '../infra/errors.js'
import { boolParam, limitParam, orderParam, rollbackSpec, usersParam, windowParams } from './query.js'

const qs = (s: string) => new URLSearchParams(s)
const body = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
const rejects = (f: () => unknown, text: string) => {
  try {
    f()
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).status).toBe(400)
    expect((err as AppError).message).toContain(text)
    return
  }
  throw new Error('expected a 400')
}

describe('history query values', () => {
  it('reads the window with defaults and refuses bad times', () => {
    expect(windowParams(qs(''), 50)).toEqual({ from: 0, to: 50 })
    expect(windowParams(qs('from=5&to=5'), 50)).toEqual({ from: 5, to: 5 })
    rejects(() => windowParams(qs('from=1.5'), 50), 'from must be')
    rejects(() => windowParams(qs('to=-3'), 50), 'to must be')
    rejects(() => windowParams(qs('to=yesterday'), 50), 'to must be')
    rejects(() => windowParams(qs('from=9&to=3'), 50), 'after')
  })

  it('checks order, booleans, limit and users', () => {
    expect(orderParam(qs(''))).toBe('desc')
    rejects(() => orderParam(qs('order=newest')), 'order')
    expect(boolParam(qs('group=false'), 'group', true)).toBe(false)
    rejects(() => boolParam(qs('group=maybe'), 'group', true), 'group')
    expect(limitParam(qs(''), 1000)).toBe(100)
    expect(limitParam(qs('limit=5000'), 1000)).toBe(1000)
    rejects(() => limitParam(qs('limit=0'), 1000), 'limit')
    expect(usersParam(qs('by=a&by=b'))).toEqual(new Set(['a', 'b']))
    rejects(() => usersParam(qs('by=')), 'by')
  })

  it('reads rollback bodies: {to}, {version} or {from, to, by, attr}', () => {
    expect(rollbackSpec(body({ to: 5 }))).toEqual({ kind: 'to', to: 5 })
    expect(rollbackSpec(body({ version: 'v1' }))).toEqual({ kind: 'version', version: 'v1' })
    expect(rollbackSpec(body({ from: 1, to: 5, by: 'ann' }))).toEqual({ kind: 'window', from: 1, to: 5, by: new Set(['ann']), attr: null })
    expect(rollbackSpec(body({ from: 1, to: 5, attr: { source: 'ai' } }))).toEqual({ kind: 'window', from: 1, to: 5, by: null, attr: new Map([['source', 'ai']]) })
    rejects(() => rollbackSpec(body({ from: 1, to: 5, attr: { Source: 'ai' } })), 'attribution key')
    rejects(() => rollbackSpec(body({ from: 1, to: 5, attr: {} })), 'at least one')
    rejects(() => rollbackSpec(body({ to: 5, attr: { source: 'ai' } })), 'need a window')
    rejects(() => rollbackSpec(body({ version: 'v1', to: 5 })), 'alone')
    rejects(() => rollbackSpec(body({ from: 1 })), 'to must be')
    rejects(() => rollbackSpec(body({ to: 1, by: ['ann'] })), 'need a window')
    rejects(() => rollbackSpec(body({ from: 6, to: 5 })), 'after')
    rejects(() => rollbackSpec(new TextEncoder().encode('{')), 'JSON')
  })
})
