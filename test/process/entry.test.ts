// bin/tandem.js runs the production bundle when there is one, unless the sources beside it changed
// after it was built: then the sources, saying why.
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/bundle.js'

const run = promisify(execFile)
let dir: string

beforeAll(async () => {
  // Inside the repository, so `tsx` resolves from node_modules as it does for bin/tandem.js itself.
  await mkdir(join(ROOT, 'test-artifacts'), { recursive: true })
  dir = await mkdtemp(join(ROOT, 'test-artifacts', 'entry-'))
  await mkdir(join(dir, 'bin'))
  await mkdir(join(dir, 'dist'))
  await mkdir(join(dir, 'src', 'collab'), { recursive: true })
  await copyFile(join(ROOT, 'bin', 'tandem.js'), join(dir, 'bin', 'tandem.js'))
  await writeFile(join(dir, 'dist', 'tandem.mjs'), "console.log('bundle')\n")
  await writeFile(join(dir, 'src', 'main.ts'), "const from: string = 'sources'\nconsole.log(from)\n")
  await writeFile(join(dir, 'src', 'collab', 'room.ts'), 'export {}\n')
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

const entry = () => run(process.execPath, [join(dir, 'bin', 'tandem.js')])
const age = (path: string, secondsAgo: number) =>
  utimes(path, new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000))

describe('bin/tandem.js', () => {
  it('runs the bundle when it is newer than every source file', async () => {
    await age(join(dir, 'src', 'main.ts'), 60)
    await age(join(dir, 'src', 'collab', 'room.ts'), 60)
    await age(join(dir, 'dist', 'tandem.mjs'), 30)
    const { stdout, stderr } = await entry()
    expect(stdout.trim()).toBe('bundle')
    expect(stderr).toBe('')
  })

  it('runs the sources, and says so, when one of them changed after the bundle was built', async () => {
    await age(join(dir, 'src', 'collab', 'room.ts'), 10)
    const { stdout, stderr } = await entry()
    expect(stdout.trim()).toBe('sources')
    expect(stderr).toContain('dist/tandem.mjs is older than src/collab/room.ts')
  })
})
