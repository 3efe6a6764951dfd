import { describe, expect, it } from 'vitest'
import { routeInput } from '../collab/rest/route-input.js'
import { AppError } from '../infra/errors.js'
import { HISTORY_ROUTES } from './rest-schema.js'

const json = 'application/json'
const query = (decl: { query?: never } | object, s: string) =>
  routeInput(decl, { query: new URLSearchParams(s), contentType: '', body: null }).query as Record<string, unknown>
const activity = (s: string) => query(HISTORY_ROUTES.activity.GET, s)
const rollback = (v: unknown) =>
  routeInput(HISTORY_ROUTES.rollback.POST, {
    query: new URLSearchParams(),
    contentType: json,
    body: new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v)),
  }).body
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
  it('reads times and refuses bad ones', () => {
    expect(activity('')).toEqual({})
    expect(activity('from=5&to=5')).toEqual({ from: 5, to: 5 })
    rejects(() => activity('from=1.5'), 'from must be')
    rejects(() => activity('to=-3'), 'to must be')
    rejects(() => activity('to=yesterday'), 'to must be')
  })

  it('checks order, booleans, limit, users and attributions', () => {
    expect(activity('order=asc').order).toBe('asc')
    rejects(() => activity('order=newest'), 'order')
    expect(activity('group=false').group).toBe(false)
    rejects(() => activity('group=maybe'), 'group must be true or false, got "maybe"')
    expect(activity('limit=5000').limit).toBe(5000)
    rejects(() => activity('limit=0'), 'limit')
    expect(activity('by=a&by=b').by).toEqual(new Set(['a', 'b']))
    rejects(() => activity('by='), 'by')
    expect(query(HISTORY_ROUTES.changeset.GET, 'attr=source:ai&attr=model:m1').attr).toEqual(
      new Map([
        ['source', 'ai'],
        ['model', 'm1'],
      ]),
    )
    rejects(() => activity('attr=Source'), 'attr must be key:value')
    rejects(() => activity('attr=source:a&attr=source:b'), 'two different values')
  })

  it('reads rollback bodies: {to}, {version} or {from, to, by, attr}', () => {
    expect(rollback({ to: 5 })).toEqual({ kind: 'to', to: 5 })
    expect(rollback({ version: 'v1' })).toEqual({ kind: 'version', version: 'v1' })
    expect(rollback({ from: 1, to: 5, by: 'ann' })).toEqual({
      kind: 'window',
      from: 1,
      to: 5,
      by: new Set(['ann']),
      attr: null,
    })
    expect(rollback({ from: 1, to: 5, attr: { source: 'ai' } })).toEqual({
      kind: 'window',
      from: 1,
      to: 5,
      by: null,
      attr: new Map([['source', 'ai']]),
    })
    rejects(() => rollback({ from: 1, to: 5, attr: { Source: 'ai' } }), 'attribution key')
    rejects(() => rollback({ from: 1, to: 5, attr: {} }), 'at least one')
    rejects(() => rollback({ to: 5, attr: { source: 'ai' } }), 'need a window')
    rejects(() => rollback({ version: 'v1', to: 5 }), 'alone')
    rejects(() => rollback({ from: 1 }), 'to must be')
    rejects(() => rollback({ to: 1, by: ['ann'] }), 'need a window')
    rejects(() => rollback({ from: 6, to: 5 }), 'after')
    rejects(() => rollback({ from: 1, to: 5, by: [] }), 'by must be a user id')
    rejects(() => rollback([1]), 'body must be a JSON object')
    rejects(() => rollback('{'), 'JSON')
  })
})
