// The demo world's database asset: two related tables with a few hundred rows, seeded once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemo } from '../../src/demo/world.js'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { call } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem()
})
afterAll(() => h?.close())

describe('demo database', () => {
  it('lists customers and orders with row estimates, serves related rows and seeds only once', async () => {
    const world = await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))
    expect(world.assets).toContainEqual({ type: 'database', id: DEMO_DATABASE_ID, title: 'Shop database' })
    const key = world.apiKey
    const tables = await call(h, 'GET', `/api/v0/databases/${DEMO_DATABASE_ID}/data`, { key })
    expect(tables.body).toEqual({
      tables: [
        { name: 'customers', row_count: 150, schema: 'public' },
        { name: 'orders', row_count: 450, schema: 'public' },
      ],
    })
    const orders = await call(
      h,
      'GET',
      `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders?customer_id=eq.14&order=id&select=id,customer_id,status`,
      { key },
    )
    expect(orders.status).toBe(200)
    expect(orders.body.data.length).toBeGreaterThan(0)
    for (const o of orders.body.data) expect(o.customer_id).toBe(14)
    const again = await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))
    expect(again.assets.filter((a) => a.id === DEMO_DATABASE_ID)).toHaveLength(1)
    const inserted = await call(h, 'POST', `/api/v0/databases/${DEMO_DATABASE_ID}/data/orders`, {
      key,
      body: { data: { customer_id: 1, product: 'Cable', quantity: 2, unit_price: 3.5 }, return_representation: true },
    })
    expect(inserted).toMatchObject({
      status: 200,
      body: { data: [{ customer_id: 1, product: 'Cable', status: 'pending' }] },
    })
  })
})
