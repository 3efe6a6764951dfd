import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../infra/errors.js'
import { declareRoutes, lazyRoutes, type RestContext, type RestRequest } from './route-model.js'
import { unprocessable } from './route-input.js'

const ctx = {} as RestContext
const request = (query: string, body?: unknown): RestRequest =>
  ({
    query: new URLSearchParams(query),
    contentType: 'application/json',
    body: body === undefined ? null : new TextEncoder().encode(JSON.stringify(body)),
  }) as RestRequest

const DECLS = declareRoutes({
  x: {
    POST: {
      summary: 'x',
      access: 'rw',
      query: z.object({ n: z.string().regex(/^\d+$/, { error: 'n must be digits' }).transform(Number).optional() }),
      body: {
        json: z.object({
          name: z
            .string({ error: 'name must be a string' })
            .superRefine(unprocessable((v: string) => (v === '' ? 'name must not be empty' : null))),
        }),
      },
      answers: { 200: { description: 'ok' } },
    },
  },
})

describe('collab REST routes declared once', () => {
  it('load their handlers once, on the first request, and pass them the validated input', async () => {
    let loads = 0
    const routes = lazyRoutes(DECLS, async () => {
      loads++
      return {
        x: { POST: async (_req, _ctx, input) => ({ status: 200, json: { n: input.query.n, name: input.body.name } }) },
      }
    })
    expect(loads).toBe(0)
    expect(await routes.x!.POST!.handle(request('n=7', { name: 'a' }), ctx)).toEqual({
      status: 200,
      json: { n: 7, name: 'a' },
    })
    await routes.x!.POST!.handle(request('', { name: 'b' }), ctx)
    expect(loads).toBe(1)
  })

  it('refuse a malformed request before the handlers are loaded: 400, or 422 where the schema says', async () => {
    let loads = 0
    const routes = lazyRoutes(DECLS, async () => {
      loads++
      return { x: { POST: async () => ({ status: 200 }) } }
    })
    const refusal = (q: string, body: unknown) =>
      routes.x!.POST!.handle(request(q, body), ctx).catch((e: AppError) => ({ status: e.status, error: e.message }))
    expect(await refusal('n=x', { name: 'a' })).toEqual({ status: 400, error: 'n must be digits' })
    expect(await refusal('', { name: 5 })).toEqual({ status: 400, error: 'name must be a string' })
    expect(await refusal('', { name: '' })).toEqual({ status: 422, error: 'name must not be empty' })
    expect(loads).toBe(0)
  })
})
