#!/usr/bin/env node
// Entry point of the `tandem` command. Runs the production bundle when present (`npm run build`,
// the production image: dist/tandem.mjs, scripts/bundle.ts), otherwise loads the TypeScript sources
// through tsx so a fresh checkout works after `npm ci`. A bundle older than the sources beside it
// (built, then edited) is not run: `npm start` and the tests would silently run yesterday's code.
// From sources, the workspace packages resolve to theirs too: @tandem/client through the
// `tandem-source` condition of its exports (as `node --conditions tandem-source` would), never a
// dist/ that may be missing or stale. Processes forked from this one (loadtest workers) load it again.
import { register } from 'node:module'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const built = fileURLToPath(new URL('../dist/tandem.mjs', import.meta.url))
const sources = fileURLToPath(new URL('../src', import.meta.url))

/** The first source file changed after `time` (ms), if any (~300 stats, a few ms). */
function changedSince(dir, time) {
  for (const name of readdirSync(dir, { recursive: true })) {
    if (name.endsWith('.ts') && statSync(join(dir, name)).mtimeMs > time) return name
  }
  return null
}

const stale = existsSync(built) && existsSync(sources) ? changedSince(sources, statSync(built).mtimeMs) : null
if (stale) process.stderr.write(`dist/tandem.mjs is older than src/${stale}: running the sources (npm run build refreshes the bundle)\n`)
if (existsSync(built) && !stale) {
  await import(pathToFileURL(built).href)
} else {
  const tsx = await import('tsx/esm/api')
  tsx.register()
  const sourceCondition = `export const resolve = (s, c, next) => next(s, { ...c, conditions: [...c.conditions, 'tandem-source'] })`
  register(`data:text/javascript,${encodeURIComponent(sourceCondition)}`)
  await import(new URL('../src/main.ts', import.meta.url).href)
}
