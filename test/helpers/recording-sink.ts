// A commit sink for tests: records what the committer tells it, and marks every write as the
// webhooks' sink does, so a test sees the marks reach the store.
import type { CommitSink } from '../../src/collab/group-commit.js'
import type { AppendWrite } from '../../src/storage/doc-store.js'

export function recordingSink() {
  const calls: string[] = []
  const sink: CommitSink = {
    mark(writes: AppendWrite[]) {
      calls.push('mark')
      for (const w of writes) w.marks = [...(w.marks ?? []), { key: `test!${w.docId}`, value: '1' }]
    },
    committed: () => void calls.push('committed'),
  }
  return { calls, sink }
}
