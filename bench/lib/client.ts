// Moved to src/loadtest/client.ts: the one load generator, shared by bench/ and `tandem loadtest`.
export * from '../../src/loadtest/client.js'
