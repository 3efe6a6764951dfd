// scripts/package-boundaries.ts on a fixture tree with one import of every kind, allowed and not,
// then on this repository, which must have none of the second kind.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageBoundaryOffences } from '../../scripts/package-boundaries.js'

const FIXTURE: Record<string, string> = {
  'packages/a/src/index.ts': "export { b } from './b.js'\nimport type { T } from '../../../src/types.js'\n",
  'packages/a/src/b.ts': "import { c } from '../../b/src/c.js'\nexport const b = await import('../build.js')\n",
  'packages/a/build.ts': "import { x } from './src/index.js'\nimport { y } from '../../scripts/tool.js'\n",
  'packages/b/src/c.ts': "import { a } from '@tandem/a'\nexport const c = 1\n",
  'src/server.ts': "import { a } from '@tandem/a'\nimport { c } from '../packages/b/src/c.js'\nimport './types.js'\n",
  'src/types.ts': 'export type T = 1\n',
  'test/a.test.ts': "import { b } from '../packages/a/src/b.js'\nimport { run } from '../packages/a/build.js'\n",
  'web/src/main.ts': "const m = await import('../../packages/b/src/c.js')\n",
  'bench/run.js': "const c = require('../packages/b/src/c.js')\n",
  'scripts/tool.ts': "export { a } from '../src/server.js'\n",
  // not scanned: another package's build output and installed modules
  'packages/a/dist/index.js': "import '../../../src/server.js'\n",
  'node_modules/x/index.js': "import '../../packages/a/src/index.js'\n",
}

let root: string
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'package-boundaries-'))
  for (const [path, text] of Object.entries(FIXTURE)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
})
afterAll(() => rm(root, { recursive: true, force: true }))

describe('package boundaries', () => {
  it("lists every relative import out of a package, or into a package's sources, and nothing else", async () => {
    const found = (await packageBoundaryOffences(root)).map((o) => `${o.file}:${o.line} ${o.target} (${o.why})`).sort()
    expect(found).toEqual([
      'bench/run.js:1 packages/b/src/c.js (reaches into packages/b/src: import the package by name)',
      'packages/a/build.ts:2 scripts/tool.js (leaves packages/a/)',
      'packages/a/src/b.ts:1 packages/b/src/c.js (leaves packages/a/)',
      'packages/a/src/index.ts:2 src/types.js (leaves packages/a/)',
      'src/server.ts:2 packages/b/src/c.js (reaches into packages/b/src: import the package by name)',
      'test/a.test.ts:1 packages/a/src/b.js (reaches into packages/a/src: import the package by name)',
      'web/src/main.ts:1 packages/b/src/c.js (reaches into packages/b/src: import the package by name)',
    ])
  })

  it('finds none in this repository', async () => {
    expect(await packageBoundaryOffences(fileURLToPath(new URL('../..', import.meta.url)))).toEqual([])
  })
})
