// Smoke test of `npm run bench:history` (not a benchmark): a tiny run proves the script still
// writes its report with every figure, and that the history answers agree with the document.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

describe('bench:history', () => {
  it('a 2000-edit run writes a report with sizes, times and memory', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tandem-history-bench-out-'))
    try {
      await promisify(execFile)(process.execPath, [
        '--import',
        'tsx',
        'bench/history.ts',
        '--edits',
        '2000',
        '--users',
        '3',
        '--out',
        out,
      ])
      const report = JSON.parse(readFileSync(join(out, 'history-latest.json'), 'utf8'))
      expect(report.document).toMatchObject({ edits: 2000, users: 3, indexEntries: 2000 })
      expect(report.sizes.attributionIndexBytes).toBeGreaterThan(0)
      for (const v of Object.values(report.ms)) expect(v).toBeGreaterThanOrEqual(0)
      expect(report.results.changesetAllInserted).toBeGreaterThan(0)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
