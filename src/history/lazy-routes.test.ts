import { describe, expect, it } from 'vitest'
import { lazyRoutes, type RestContext, type RestRequest, type RestRoutes } from '../collab/rest/route-model.js'
import { HISTORY_ROUTE_SHAPE } from './lazy-routes.js'
import { historyRoutes } from './routes.js'

const shapeOf = (routes: RestRoutes) =>
  Object.fromEntries(
    Object.entries(routes).map(([name, methods]) => [
      name,
      Object.fromEntries(Object.entries(methods).map(([m, r]) => [m, { access: r!.access, body: Boolean(r!.body) }])),
    ]),
  )

const req = {} as RestRequest
const ctx = {} as RestContext

describe('history routes loaded on first use', () => {
  it('declare the same names, methods, access and body as the history routes themselves', () => {
    expect(shapeOf(HISTORY_ROUTE_SHAPE as RestRoutes)).toEqual(shapeOf(historyRoutes(async () => Promise.reject(new Error('not used')))))
  })

  it('load their module once, on the first request, and answer with its handler', async () => {
    let loads = 0
    const routes = lazyRoutes({ x: { GET: { access: 'r' } } }, async () => {
      loads++
      return { x: { GET: { access: 'r', handle: async () => ({ status: 200, json: { ok: true } }) } } }
    })
    expect(loads).toBe(0)
    expect(await routes.x!.GET!.handle(req, ctx)).toEqual({ status: 200, json: { ok: true } })
    await routes.x!.GET!.handle(req, ctx)
    expect(loads).toBe(1)
  })

  it('refuse a loaded route whose access differs from the declared one', async () => {
    const routes = lazyRoutes({ x: { GET: { access: 'r' } } }, async () => ({
      x: { GET: { access: 'rw', handle: async () => ({ status: 200 }) } },
    }))
    await expect(routes.x!.GET!.handle(req, ctx)).rejects.toThrow(/does not match/)
  })
})
