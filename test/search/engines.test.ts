// The two engines answer alike: the same corpus written to a server on LevelDB (the embedded PGlite
// index) and to one on PostgreSQL (its own full-text search) gives the same results for the same
// queries — order, match kind, snippet and rank — block ids aside (each document's own).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { asset, makeWorld } from '../api/helpers.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { found, search, write } from './helpers.js'

const CORPUS: [title: string, text: string][] = [
  ['Pricing strategy', 'Our Q3 pricing rises ten percent\nDiscounts end in September'],
  ['Q3 review', 'Revenue grew; pricing held\nThe team shipped the search box'],
  ['Hiring plan', 'Four engineers join in Q3\nPrices of offices went up'],
  ['Travel policy', 'Book trains before planes\nReceipts within a week'],
  ['Glossary', 'Price: what a customer pays\nPricing: how we set it\nQ3: July to September'],
]
const QUERIES = [
  'pricing',
  '"q3 pricing"',
  'pric*',
  'q3 -hiring',
  'september or receipts',
  'engineers join',
  'search box',
  'nothing-like-this',
]

const servers: { h: Harness; workspaceId: string; key: string }[] = []
beforeAll(async () => {
  for (const backend of BACKENDS) {
    const h = await startTandem({ ...(await backend.overrides()), searchIndex: 'on' })
    const w = await makeWorld(h, `engines-${backend.name}`)
    for (const [i, [title, text]] of CORPUS.entries())
      await write(
        h,
        await asset(h, {
          id: `as-corpus-${i}`,
          workspaceId: w.workspaceId,
          type: 'generic_doc',
          title,
          defaultAccess: 'view',
        }),
        text,
      )
    servers.push({ h, workspaceId: w.workspaceId, key: w.keys.member })
  }
  for (const s of servers)
    await eventually(
      async () => expect(await found(s.h, s.key, s.workspaceId, 'receipts')).toEqual(['as-corpus-3']),
      60_000,
    )
}, 180_000)
afterAll(async () => {
  for (const s of servers) await s.h.close()
})

it('PGlite and PostgreSQL give the same results for the same corpus and queries', async () => {
  const answers = await Promise.all(
    servers.map(async (s) => {
      const out: Record<string, unknown> = {}
      for (const q of QUERIES) {
        const r = await search(s.h, s.key, s.workspaceId, q)
        expect(r.status).toBe(200)
        out[q] = (r.body.results as { block: string | null }[]).map(({ block, ...rest }) => ({
          ...rest,
          block: block === null ? null : 'a block',
        }))
      }
      return out
    }),
  )
  expect(answers[0]).toEqual(answers[1])
  // and they are not trivially equal: every query but the last finds something
  for (const q of QUERIES.slice(0, -1)) expect([q, (answers[0]![q] as unknown[]).length > 0]).toEqual([q, true])
  expect(answers[0]!['nothing-like-this']).toEqual([])
})
