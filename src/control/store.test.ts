// One control store contract over LevelDB and PostgreSQL, then what PostgreSQL adds: serial()
// across processes (two pools stand for two processes), transactional serial updates, and no
// deadlock when serial updates outnumber the pool.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../test/helpers/postgres.js'
import type { RootDb } from '../infra/data-dir.js'
import { applySchemaMigrations } from '../pg/schema.js'
import { createPgPool, type PgPool } from '../pg/pool.js'
import { HookedControlStore } from './hooked-store.js'
import { LevelControlStore } from './leveldb.js'
import { PgControlStore } from './postgres.js'
import type { ControlStore } from './store.js'

let pgServer: Promise<PgServer> | undefined
let schemas = 0
afterAll(async () => (await pgServer)?.close())

async function pgSchema(): Promise<{ schema: string; pool: (size?: number) => Promise<PgPool> }> {
  const pgs = await (pgServer ??= startPostgres())
  const schema = `control_${++schemas}`
  return {
    schema,
    pool: async (size = 4) => {
      const p = createPgPool({ url: pgs.url, schema, poolSize: size })
      await applySchemaMigrations(p, schema)
      return p
    },
  }
}

type Made = { store: ControlStore; done: () => Promise<void> }
const impls: [string, () => Promise<Made>][] = [
  [
    'leveldb',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tandem-control-'))
      const db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
      await db.open()
      return {
        store: new LevelControlStore(db),
        done: async () => {
          await db.close()
          await rm(dir, { recursive: true, force: true })
        },
      }
    },
  ],
  [
    'postgres',
    async () => {
      const { schema, pool } = await pgSchema()
      const p = await pool()
      return { store: new PgControlStore(p, { schema, maxSerial: 2 }), done: () => p.end() }
    },
  ],
]

const put = (key: string, value: unknown) => ({ type: 'put' as const, key, value })
const del = (key: string) => ({ type: 'del' as const, key })

describe.each(impls)('ControlStore contract: %s', (_name, make) => {
  let ctx: Made
  beforeEach(async () => {
    ctx = await make()
  })
  afterEach(async () => ctx.done())

  it('returns a record exactly as written: key order, nesting, numbers, unicode and NUL inside strings', async () => {
    const value = {
      z: 1,
      a: [1, 2.5, -3, null, true],
      nested: { b: 'x', a: 'y' },
      s: 'naïve 日本 \u0000 "q" \\ 😀',
      big: 2 ** 53 - 1,
    }
    await ctx.store.batch([put('user/a@example.com', value)])
    const got = await ctx.store.get<typeof value>('user/a@example.com')
    expect(got).toEqual(value)
    expect(JSON.stringify(got)).toBe(JSON.stringify(value))
    expect(await ctx.store.get('user/nobody')).toBeUndefined()
  })

  it('getMany answers in the order asked, undefined for absent keys', async () => {
    await ctx.store.batch([put('k/1', 1), put('k/2', { two: 2 }), put('k/3', 'three')])
    expect(await ctx.store.getMany(['k/3', 'k/none', 'k/1', 'k/2', 'k/1'])).toEqual([
      'three',
      undefined,
      1,
      { two: 2 },
      1,
    ])
    expect(await ctx.store.getMany([])).toEqual([])
  })

  it('applies a batch in order: the last op on a key wins, deletes included', async () => {
    await ctx.store.batch([put('x/keep', 1), put('x/gone', 1)])
    await ctx.store.batch([
      put('x/gone', 2),
      del('x/gone'),
      del('x/keep'),
      put('x/keep', 3),
      put('x/new', 4),
      put('x/new', 5),
    ])
    expect(await ctx.store.getMany(['x/keep', 'x/gone', 'x/new'])).toEqual([3, undefined, 5])
    await ctx.store.batch([])
    await ctx.store.batch([del('x/never-there')])
  })

  it('lists one kind in bytewise key order, never crossing into a neighbouring kind, bounded by limit', async () => {
    const keys = [
      'a/1',
      'a/10',
      'a/2',
      'a/B',
      'a/b',
      'a/é',
      'a/日本',
      'a/😀',
      'a/ÿz',
      'a',
      'a0/x',
      'a./x',
      'ab/1',
      'a/1/sub',
    ]
    await ctx.store.batch(keys.map((k, i) => put(k, i)))
    const bytewise = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y))
    const expected = keys.filter((k) => k.startsWith('a/')).sort(bytewise)
    expect((await ctx.store.list('a')).map((r) => r.key)).toEqual(expected)
    expect((await ctx.store.list('a', 3)).map((r) => r.key)).toEqual(expected.slice(0, 3))
    expect(await ctx.store.list<number>('a/1')).toEqual([{ key: 'a/1/sub', value: keys.indexOf('a/1/sub') }])
    expect(await ctx.store.list('none')).toEqual([])
  })

  it('scans every record after a key in order, in pages', async () => {
    const keys = Array.from({ length: 25 }, (_, i) => `kind${i % 3}/${String(i).padStart(2, '0')}`)
    await ctx.store.batch(keys.map((k) => put(k, k)))
    const seen: string[] = []
    for (let after = ''; ;) {
      const page = await ctx.store.scan(after, 7)
      if (page.length === 0) break
      for (const r of page) expect(r.value).toBe(r.key)
      seen.push(...page.map((r) => r.key))
      after = page[page.length - 1]!.key
    }
    expect(seen).toEqual([...keys].sort())
  })

  it('serial never loses one of many concurrent read-modify-writes of a key', async () => {
    const bump = () =>
      ctx.store.serial('counter/c', async () => {
        const n = (await ctx.store.get<number>('counter/c')) ?? 0
        await new Promise((r) => setTimeout(r, 1))
        await ctx.store.batch([put('counter/c', n + 1)])
        return n + 1
      })
    const results = await Promise.all(Array.from({ length: 40 }, bump))
    expect(await ctx.store.get('counter/c')).toBe(40)
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  })

  it('serial passes on errors to its caller and keeps going for the next', async () => {
    await expect(ctx.store.serial('e/k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await ctx.store.serial('e/k', async () => 'next')).toBe('next')
  })
})

describe('PgControlStore across processes', () => {
  const bumpOn = (store: ControlStore, k: string) =>
    store.serial(k, async () => {
      const n = (await store.get<number>(k)) ?? 0
      await new Promise((r) => setTimeout(r, Math.random() * 3))
      await store.batch([put(k, n + 1)])
    })

  it('two processes (two pools) bumping one key never lose an update', async () => {
    const { schema, pool } = await pgSchema()
    const [p1, p2] = [await pool(3), await pool(3)]
    try {
      const a = new PgControlStore(p1, { schema, maxSerial: 1 })
      const b = new PgControlStore(p2, { schema, maxSerial: 1 })
      await Promise.all(Array.from({ length: 30 }, (_, i) => bumpOn(i % 2 ? a : b, 'counter/shared')))
      expect(await a.get('counter/shared')).toBe(30)
    } finally {
      await Promise.all([p1.end(), p2.end()])
    }
  })

  it('one process holding a key keeps the other waiting, and the other then reads what it wrote', async () => {
    const { schema, pool } = await pgSchema()
    const [p1, p2] = [await pool(), await pool()]
    try {
      const a = new PgControlStore(p1, { schema, maxSerial: 2 })
      const b = new PgControlStore(p2, { schema, maxSerial: 2 })
      let release!: () => void
      const gate = new Promise<void>((r) => (release = r))
      let aEntered!: () => void
      const entered = new Promise<void>((r) => (aEntered = r))
      const first = a.serial('reg/w1', async () => {
        await a.batch([put('reg/w1', 'from a')])
        aEntered()
        await gate
      })
      await entered
      let bRan = false
      const second = b.serial('reg/w1', async () => {
        bRan = true
        return b.get<string>('reg/w1')
      })
      await new Promise((r) => setTimeout(r, 300))
      expect(bRan).toBe(false)
      // a's write is not visible before a's serial update commits
      expect(await b.get('reg/w1')).toBeUndefined()
      release()
      await first
      expect(await second).toBe('from a')
    } finally {
      await Promise.all([p1.end(), p2.end()])
    }
  })

  it('a serial update that throws keeps none of its writes; one that swallows a failed statement reports it', async () => {
    const { schema, pool } = await pgSchema()
    const p = await pool()
    try {
      const s = new PgControlStore(p, { schema, maxSerial: 2 })
      await expect(
        s.serial('t/1', async () => {
          await s.batch([put('t/1', 'half')])
          throw new Error('second step failed')
        }),
      ).rejects.toThrow('second step failed')
      expect(await s.get('t/1')).toBeUndefined()
      // a key too long for the index makes the statement fail inside the transaction
      const tooLong = 't/' + randomBytes(6000).toString('base64')
      await expect(
        s.serial('t/1', async () => {
          await s.batch([put('t/1', 'lost')])
          await s.batch([put(tooLong, 1)]).catch(() => undefined)
        }),
      ).rejects.toThrow(/none of its writes were kept/)
      expect(await s.get('t/1')).toBeUndefined()
    } finally {
      await p.end()
    }
  })

  it('more serial updates than connections, each querying inside, all finish (no pool deadlock)', async () => {
    const { schema, pool } = await pgSchema()
    const p = await pool(2)
    try {
      const s = new PgControlStore(p, { schema, maxSerial: 1 })
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          s.serial(`many/${i}`, async () => {
            await Promise.all([s.get(`many/${i}`), p.query('SELECT 1'), s.list('many')])
            await s.batch([put(`many/${i}`, i)])
          }),
        ),
      )
      expect((await s.list('many')).length).toBe(12)
    } finally {
      await p.end()
    }
  })

  it('a batch hook inside a serial update runs after its commit: another process reads the write, and a rollback runs no hook', async () => {
    const { schema, pool } = await pgSchema()
    const [p1, p2] = [await pool(), await pool()]
    try {
      const a = new HookedControlStore(new PgControlStore(p1, { schema, maxSerial: 2 }))
      const b = new PgControlStore(p2, { schema, maxSerial: 2 })
      // what a cluster node does on a notice: the other process re-reads the record
      const seenByB: unknown[] = []
      a.addHook({ after: async (ops) => void seenByB.push(await b.get(ops[0]!.key)) })
      let returned = false
      await a.serial('hook/w', async () => {
        await a.batch([put('hook/w', 'registered')])
        returned = true
      })
      expect(returned).toBe(true)
      expect(seenByB).toEqual(['registered']) // and serial resolved only after the hook
      await expect(
        a.serial('hook/x', async () => {
          await a.batch([put('hook/x', 'undone')])
          throw new Error('second step failed')
        }),
      ).rejects.toThrow('second step failed')
      expect(seenByB).toEqual(['registered'])
      // outside a serial update the hook runs once the batch is written
      await a.batch([put('hook/y', 'plain')])
      expect(seenByB).toEqual(['registered', 'plain'])
    } finally {
      await Promise.all([p1.end(), p2.end()])
    }
  })

  it('nested serial joins the outer transaction', async () => {
    const { schema, pool } = await pgSchema()
    const p = await pool()
    try {
      const s = new PgControlStore(p, { schema, maxSerial: 1 })
      await s.serial('n/outer', async () => {
        await s.batch([put('n/outer', 1)])
        await s.serial('n/inner', async () => s.batch([put('n/inner', await s.get<number>('n/outer'))]))
      })
      expect(await s.getMany(['n/outer', 'n/inner'])).toEqual([1, 1])
    } finally {
      await p.end()
    }
  })

  it('keys PostgreSQL cannot hold read as absent and are refused on write, nothing written', async () => {
    const { schema, pool } = await pgSchema()
    const p = await pool()
    try {
      const s = new PgControlStore(p, { schema, maxSerial: 1 })
      expect(await s.get('user/\u0000')).toBeUndefined()
      expect(await s.getMany(['user/\u0000', 'user/\uD800'])).toEqual([undefined, undefined])
      expect(await s.list('user/\u0000')).toEqual([])
      await expect(s.batch([put('ok/1', 1), put('user/\uDC00x', 1)])).rejects.toThrow(/cannot be stored/)
      expect(await s.get('ok/1')).toBeUndefined()
    } finally {
      await p.end()
    }
  })
})
