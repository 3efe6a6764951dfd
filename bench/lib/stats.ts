// Moved to src/loadtest/stats.ts: the one load generator, shared by bench/ and `tandem loadtest`.
export * from '../../src/loadtest/stats.js'
