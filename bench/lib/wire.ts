// Moved to src/loadtest/wire.ts: the one load generator, shared by bench/ and `tandem loadtest`.
export * from '../../src/loadtest/wire.js'
