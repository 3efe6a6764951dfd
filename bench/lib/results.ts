// Where a bench script writes its results: bench/results/local/ (ignored by git) unless asked to
// save (--save: bench/results/, tracked), or wherever --out says. So a run leaves the tree clean,
// and what is tracked is each scenario's latest-* and the runs docs/ cites (bench/README.md).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Flags } from './args.js'

const RESULTS = fileURLToPath(new URL('../results/', import.meta.url))

/** The results folder for these flags (--out DIR, --save, else the ignored one), created. */
export function resultsDir(flags: Flags): string {
  const dir = flags.get('out') ?? (flags.has('save') ? RESULTS : join(RESULTS, 'local'))
  mkdirSync(dir, { recursive: true })
  return dir
}

/** Whether these flags write the tracked folder (then bench/README.md's latest tables follow). */
export const saving = (flags: Flags): boolean => !flags.has('out') && flags.has('save')
