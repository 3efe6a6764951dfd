// Moved to src/loadtest/marks.ts: the one load generator, shared by bench/ and `tandem loadtest`.
export * from '../../src/loadtest/marks.js'
