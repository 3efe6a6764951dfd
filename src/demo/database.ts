// The demo world's database asset: two related tables, customers and their orders, a few hundred
// rows, analysed so the table list shows row estimates. Made where new database assets go: on
// Tandem's own PostgreSQL with --postgres-url (so every process and cluster node serves it), else
// an embedded (PGlite) database in the data dir.
import { addDemoAsset, DEMO_USER, type DemoDeps, type DemoWorld } from './world.js'
import { getAsset, setGrant } from '../control/assets.js'
import { key } from '../control/store.js'
import { createDatabaseAsset } from '../database-assets/create.js'
import { assetDatabase } from '../database-assets/resolve.js'
import type { DatabaseRegistry } from '../database-assets/registry.js'

export const DEMO_DATABASE_ID = 'demo-shop'
const TITLE = 'Shop database'
const SEED_LOCK = key('demo', 'database')

const SETUP = [
  `CREATE TABLE IF NOT EXISTS customers (
    id integer PRIMARY KEY,
    name text NOT NULL,
    email text NOT NULL UNIQUE,
    country text,
    signed_up date NOT NULL DEFAULT current_date
  )`,
  `CREATE TABLE IF NOT EXISTS orders (
    id serial PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customers (id),
    product text NOT NULL,
    quantity integer NOT NULL CHECK (quantity > 0),
    unit_price numeric(10, 2) NOT NULL CHECK (unit_price >= 0),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled')),
    ordered_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX IF NOT EXISTS orders_customer_id ON orders (customer_id)`,
  // Rows are generated, deterministic, and only added to empty tables.
  `INSERT INTO customers (id, name, email, country, signed_up)
    SELECT i,
      (ARRAY['Ada', 'Lin', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances'])[1 + i % 10] || ' ' ||
      (ARRAY['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Thompson', 'Hamilton', 'Ritchie', 'Allen', 'Knuth', 'Kay'])[1 + (i * 7) % 11],
      'customer' || i || '@example.com',
      CASE WHEN i % 13 = 0 THEN NULL ELSE (ARRAY['NO', 'FR', 'DE', 'US', 'JP', 'BR'])[1 + i % 6] END,
      date '2024-01-01' + i * 3
    FROM generate_series(1, 150) AS i
    WHERE NOT EXISTS (SELECT 1 FROM customers)`,
  `INSERT INTO orders (customer_id, product, quantity, unit_price, status, ordered_at)
    SELECT 1 + (i * 13) % 150,
      (ARRAY['Keyboard', 'Mouse', 'Monitor', 'Desk lamp', 'Headphones', 'Webcam', 'USB hub', 'Notebook'])[1 + i % 8],
      1 + i % 5,
      round((5 + (i * 37) % 4000 / 10.0)::numeric, 2),
      (ARRAY['pending', 'paid', 'shipped', 'cancelled'])[1 + (i * 3) % 4],
      timestamptz '2025-01-01 00:00:00+00' + i * interval '7 hours'
    FROM generate_series(1, 450) AS i
    WHERE NOT EXISTS (SELECT 1 FROM orders)`,
  `ANALYZE customers`,
  `ANALYZE orders`,
]

/**
 * Adds the demo database to the demo world (once per control plane) and returns the world. Nodes
 * starting together take turns under one serial lock: the first creates and fills it, the others
 * find it listed; a half-done seed (the asset made, the rows not) is finished by the next start.
 */
export async function seedDemoDatabase(
  deps: DemoDeps & { databases: DatabaseRegistry },
  world: DemoWorld,
): Promise<DemoWorld> {
  if (world.assets.some((a) => a.id === DEMO_DATABASE_ID)) return world
  const { store } = deps.control
  const registry = deps.databases
  return store.serial(SEED_LOCK, async () => {
    let asset = await getAsset(store, DEMO_DATABASE_ID)
    if (!asset) {
      const fields = {
        id: DEMO_DATABASE_ID,
        workspaceId: world.workspaceId,
        title: TITLE,
        defaultAccess: 'view' as const,
      }
      asset = await createDatabaseAsset(store, registry, fields, deps.now())
      await setGrant(store, asset.id, DEMO_USER, 'edit')
    }
    const db = await assetDatabase(store, registry, asset)
    await db.ready()
    for (const text of SETUP) await db.run({ text, values: [] })
    const entry = { type: asset.type, id: asset.id, title: asset.title }
    await addDemoAsset(deps, entry)
    return { ...world, assets: [...world.assets.filter((a) => a.id !== entry.id), entry] }
  })
}
