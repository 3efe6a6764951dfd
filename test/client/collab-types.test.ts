// The client's collab REST types (packages/client/src/collab-rest-types.ts) are what the generator
// makes of the server's route declarations today, and those declarations are the running
// server's whole collab REST table: a changed schema without `npm run types:collab` fails here.
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COLLAB_DECLS, COLLAB_TYPES_FILE, collabTypes } from '../../scripts/collab-types.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem()
})
afterAll(async () => h?.close())

const methodsOf = (table: Record<string, object>) =>
  Object.fromEntries(Object.entries(table).map(([name, methods]) => [name, Object.keys(methods).sort()]))

describe('the client’s generated collab REST types', () => {
  it('are generated from every route the server serves', () => {
    expect(methodsOf(COLLAB_DECLS)).toEqual(methodsOf(h.server.deps.restRoutes))
  })

  it('are current: the committed file is what the generator writes now', async () => {
    expect(await readFile(COLLAB_TYPES_FILE, 'utf8'), 'stale: run npm run types:collab').toBe(await collabTypes())
  })
})
