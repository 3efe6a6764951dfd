import { defineConfig } from 'vitest/config'

// Socket- and process-level tests start real servers and wait on them: three files at once keep a
// 2-core machine busy (97% of both cores; 690 s for the suite, against about 1,000 s with two).
// Workspace packages resolve to their TypeScript sources: @tandem/client through the
// `tandem-source` condition of its exports (never a stale dist/), as tsc, tsx and esbuild take it;
// the rest are Vitest's own server conditions. Vitest passes them on to its workers' `--conditions`.
export default defineConfig({
  ssr: { resolve: { conditions: ['tandem-source', 'node', 'development|production'] } },
  test: {
    include: ['src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
  },
})
