#!/usr/bin/env node
// Entry point of the `tandem` command. Runs the production bundle when present (`npm run build`,
// the production image: dist/tandem.mjs, scripts/bundle.ts), otherwise loads the TypeScript sources
// through tsx so a fresh checkout works after `npm ci`.
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const built = fileURLToPath(new URL('../dist/tandem.mjs', import.meta.url))
if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('../src/main.ts', import.meta.url).href)
}
