// A server closed while its search engine is still opening (PGlite's first open runs initdb, which
// takes seconds) has let go of the data dir by the time close() resolves: nothing of this process
// still writes in it, and another open of the index's directory succeeds at once.
import { afterAll, expect, it } from 'vitest'
import { PgliteInstance } from '../../src/database-assets/pglite/instance.js'
import { dataDirPath } from '../../src/infra/data-dir.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness | undefined
afterAll(async () => h?.close())

it('close() waits for a first open of the embedded search engine, and the next open of its directory succeeds', async () => {
  h = await startTandem({ searchIndex: 'on' }, { api: false })
  const dir = dataDirPath(h.dataDir, 'search')
  await h.server.close()
  // Before, close() returned at once and the open went on in its worker: this open was refused
  // ("database directory is already open") and the directory was still being written.
  const again = await PgliteInstance.open({ dataDir: dir, deadlineMs: 30_000, sharedBuffersMb: 16 })
  try {
    expect((await again.query("SELECT to_regclass('search_blocks_v1') IS NOT NULL AS ready", [])).rows).toEqual([
      [true],
    ])
  } finally {
    await again.close()
  }
}, 120_000)
