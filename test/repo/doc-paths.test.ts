// The docs check's rules (scripts/doc-paths.ts, run by .ci/run): what counts as a cited path and
// when it exists.
import { describe, expect, it } from 'vitest'
import { citationsIn, exists } from '../../scripts/doc-paths.js'

const cited = (text: string, doc = 'docs/perf/x.md') => citationsIn(doc, text, ['collab', 'infra']).map((c) => c.path)

describe('doc paths', () => {
  it('reads links from the doc folder, top-level paths from the root, `folder/file.ts` from src/', () => {
    expect(cited('see [the bench](../../bench/README.md#run) and [web](https://example.com/src/x.ts)')).toEqual([
      'bench/README.md',
    ])
    expect(cited('run `node --import tsx bench/ablate.ts --rooms 10`, then src/server.ts.')).toEqual([
      'bench/ablate.ts',
      'src/server.ts',
    ])
    expect(cited('the reference server, `node_modules/y-websocket-server-legacy/bin/server.js`')).toEqual([])
    expect(cited('the room (`collab/room/room.ts`), not collab/registry.ts outside code')).toEqual([
      'src/collab/room/room.ts',
    ])
  })

  it('skips words with a slash, build outputs and package paths', () => {
    expect(
      cited(
        'cold docs/s 1.05; bench/.build/dist/tandem.mjs; dist/tandem.mjs; `@hocuspocus/server`; `prom-client/lib/counter.js`',
      ),
    ).toEqual([])
  })

  it('matches wildcards, placeholders, braces, folders and result stems', () => {
    const tree = new Set([
      'bench',
      'bench/results',
      'bench/results/restart-2026-11-23T01-53-49Z.json',
      'bench/results/2026-11-22T21-39-08Z.md',
      'src',
      'src/collab',
      'src/collab/room',
      'src/collab/room/room.ts',
    ])
    expect(exists('bench/results/restart-2026-11-23T01-5*.json', tree)).toBe(true)
    expect(exists('bench/results/restart-<stamp>.json', tree)).toBe(true)
    expect(exists('bench/results/2026-11-22T21-39-08Z.{json,md}', tree)).toBe(true)
    expect(exists('bench/results/2026-11-22T21-39-08Z', tree)).toBe(true)
    expect(exists('src/collab/room/', tree)).toBe(true)
    expect(exists('src/collab/room.ts', tree)).toBe(false)
    expect(exists('src/collab/room/room.ts/', tree)).toBe(false)
    expect(exists('bench/results/soak-*.json', tree)).toBe(false)
  })
})
