// Random edits by three users, checked against the plain truth: replaying the log up to a time.
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { changeset, type ChangeNode, type TextRun } from './changeset.js'
import { documentAt } from './document-at.js'
import { rollback, wantAt, wantWithout } from './rollback.js'
import { DocHistory } from './timeline.js'

function prng(seed: number): () => number {
  let s = seed
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
}

function randomLog(seed: number, edits: number): EditLog {
  const rand = prng(seed)
  const log = new EditLog()
  for (let i = 0; i < edits; i++) {
    const user = ['ann', 'bob', 'cy'][Math.floor(rand() * 3)]!
    log.edit(user, 1000 + i * 10, (d) => {
      const t = d.getText('t')
      const r = rand()
      const at = Math.floor(rand() * (t.length + 1))
      if (r < 0.6 || t.length < 4) t.insert(at, 'abcdefgh'.slice(0, 1 + Math.floor(rand() * 4)))
      else if (r < 0.9) t.delete(Math.min(at, t.length - 1), 1 + Math.floor(rand() * Math.min(3, t.length - at)))
      else t.format(Math.min(at, t.length - 1), 2, { bold: rand() < 0.5 ? true : null })
    })
  }
  return log
}

const replayed = (log: EditLog, time: number) => {
  const d = new Y.Doc()
  for (const e of log.entries) if (e.at <= time) Y.applyUpdate(d, e.update)
  return d.getText('t')
}

/** Yjs may leave redundant format marks that split equal runs; compare text with its formatting. */
function runs(t: Y.Text): { insert: string; attributes?: object }[] {
  const out: { insert: string; attributes?: object }[] = []
  for (const op of t.toDelta() as { insert: string; attributes?: object }[]) {
    const last = out[out.length - 1]
    if (last && JSON.stringify(last.attributes) === JSON.stringify(op.attributes)) last.insert += op.insert
    else out.push({ ...op })
  }
  return out
}

function merged(delta: TextRun[]): { insert: string; attributes?: object }[] {
  const out: { insert: string; attributes?: object }[] = []
  for (const r of delta) {
    if (r.attribution?.delete) continue
    const last = out[out.length - 1]
    if (last && JSON.stringify(last.attributes) === JSON.stringify(r.attributes)) last.insert += String(r.insert)
    else out.push(r.attributes ? { insert: String(r.insert), attributes: r.attributes } : { insert: String(r.insert) })
  }
  return out
}

const textAt = (delta: ChangeNode[]) =>
  delta.map((r) => ((r as TextRun).attribution?.delete ? '' : String((r as TextRun).insert))).join('')

describe('history against replay', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}: changeset text, document at a time and rollback all match the replayed log`, () => {
      const log = randomLog(seed, 150)
      const h = log.history()
      const restored = DocHistory.decode(h.encode())
      const rand = prng(seed + 1)
      for (let k = 0; k < 6; k++) {
        const to = 1000 + Math.floor(rand() * 1600)
        const from = to - Math.floor(rand() * 500)
        const truth = replayed(log, to)
        const cs = changeset(h, { from, to, by: null })
        expect(textAt(cs.roots.t?.delta ?? [])).toBe(truth.toString())
        expect(merged((cs.roots.t?.delta ?? []) as TextRun[])).toEqual(runs(truth))
        expect(changeset(restored, { from, to, by: null })).toEqual(cs)
        const cut = new Y.Doc()
        Y.applyUpdate(cut, documentAt(h, to))
        expect(runs(cut.getText('t'))).toEqual(runs(truth))
        // rollback to `to` on a copy of the log: the result reads like the document then
        const copy = new EditLog()
        for (const e of log.entries) copy.append(e.user, e.at, e.update)
        const r = rollback(h, wantAt(to))
        if (r.update) copy.append('carl', 9999, r.update)
        expect(runs(copy.shared.getText('t'))).toEqual(runs(truth))
        // undoing everyone's changes from `to + 1` on is the same as going back to `to`
        const undo = new EditLog()
        for (const e of log.entries) undo.append(e.user, e.at, e.update)
        const w = rollback(h, wantWithout(to + 1, Number.MAX_SAFE_INTEGER, null))
        if (w.update) undo.append('carl', 9999, w.update)
        expect(runs(undo.shared.getText('t'))).toEqual(runs(truth))
      }
    })
  }
})
