// The registrations a process caches: re-reads that overlap (a peer's notice while the poll
// runs) end with the newest records, never with an older read that finished last.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { Registry } from 'prom-client'
import { afterEach, describe, expect, it } from 'vitest'
import { HookedControlStore } from '../control/hooked-store.js'
import { LevelControlStore } from '../control/leveldb.js'
import type { ControlRecord } from '../control/store.js'
import type { RootDb } from '../infra/data-dir.js'
import { loadConfig } from '../infra/config.js'
import { createLogger } from '../infra/log.js'
import { MemoryDocStore } from '../storage/memory.js'
import { createWebhook, WEBHOOK_KIND } from './records.js'
import { Webhooks } from './service.js'

/** A LevelDB control store whose next listing of every registration answers only when released. */
class HeldListing extends LevelControlStore {
  private held: Promise<void> | null = null
  release: () => void = () => undefined
  /** resolves once the held listing has read its rows and waits */
  reached: Promise<void> = Promise.resolve()
  private reach: () => void = () => undefined

  holdNext(): void {
    this.held = new Promise((r) => (this.release = r))
    this.reached = new Promise((r) => (this.reach = r))
  }

  override async list<T>(prefix: string, limit?: number): Promise<ControlRecord<T>[]> {
    const rows = await super.list<T>(prefix, limit)
    const held = prefix === WEBHOOK_KIND ? this.held : null
    if (held) {
      this.held = null
      this.reach()
      await held
    }
    return rows
  }
}

describe('webhook registrations cache', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn()
  })

  it('a re-read asked for while another runs reads again after it: the newest records win', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-webhooks-'))
    const db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
    await db.open()
    cleanup.push(async () => {
      await db.close()
      await rm(dir, { recursive: true, force: true })
    })
    const inner = new HeldListing(db)
    const registry = new Registry()
    const config = loadConfig([], {}, { dataDir: dir })
    const webhooks = new Webhooks({
      control: new HookedControlStore(inner),
      docs: new MemoryDocStore(),
      config,
      log: createLogger('silent'),
      registry,
      now: Date.now,
    })
    const known = async () => (await registry.getSingleMetric('tandem_webhook_registrations')!.get()).values[0]!.value

    inner.holdNext()
    const stale = webhooks.refresh() // reads no registration, answers late
    await inner.reached
    await createWebhook(
      inner,
      { workspaceId: 'acme', url: 'https://example.com/hook', events: ['document.updated'] },
      Date.now(),
    )
    const fresh = webhooks.refresh() // what a peer's notice does
    await new Promise((r) => setTimeout(r, 20)) // a concurrent re-read would be done by now
    inner.release()
    await Promise.all([stale, fresh])
    expect(await known()).toBe(1)
  })
})
