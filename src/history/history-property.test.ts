// Random edits by three users, checked against the plain truth: replaying the log up to a time.
import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { EditLog } from '../../test/history/edit-log.js'
import { changeset, type ChangeNode, type TextRun } from './changeset.js'
import { documentAt } from './document-at.js'
import { rollback } from './rollback.js'
import { wantAt, wantWithout } from './rollback-wants.js'
import { rebase } from './retention.js'
import { DocHistory } from './timeline.js'

function prng(seed: number): () => number {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
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

  it('after folding the first half into a base, changesets and rollbacks after it are unchanged', () => {
    const log = randomLog(5, 150)
    const h = log.history()
    const folded = rebase(h, 75, log.entries)
    expect(folded.base.at).toBe(log.entries[74]!.at)
    for (const [from, to] of [
      [folded.base.at + 1, 1900],
      [1800, 2490],
      [2000, 2000],
    ] as const) {
      expect(changeset(folded, { from, to, by: null })).toEqual(changeset(h, { from, to, by: null }))
      const a = new Y.Doc()
      Y.applyUpdate(a, documentAt(folded, to))
      expect(runs(a.getText('t'))).toEqual(runs(replayed(log, to)))
    }
  })

  for (const seed of [3, 11]) {
    it(`seed ${seed}: XML paragraphs — changeset, document at a time and rollback match the replayed log`, () => {
      const rand = prng(seed)
      const log = new EditLog()
      for (let i = 0; i < 120; i++) {
        const user = ['ann', 'bob'][Math.floor(rand() * 2)]!
        log.edit(user, 1000 + i * 10, (d) => {
          const pm = d.getXmlFragment('pm')
          const r = rand()
          const at = Math.floor(rand() * (pm.length + 1))
          if (r < 0.25 || pm.length === 0) {
            const p = new Y.XmlElement('p')
            p.insert(0, [new Y.XmlText('n' + i)])
            pm.insert(at, [p])
          } else if (r < 0.4) pm.delete(Math.min(at, pm.length - 1), 1)
          else {
            const p = pm.get(Math.min(at, pm.length - 1)) as Y.XmlElement
            const t = p.get(0) as Y.XmlText
            if (r < 0.5) p.setAttribute('k', String(i))
            else if (r < 0.8 || t.length < 2) t.insert(Math.floor(rand() * (t.length + 1)), 'xy')
            else t.delete(Math.floor(rand() * (t.length - 1)), 1)
          }
        })
      }
      const h = log.history()
      const truthAt = (time: number) => {
        const d = new Y.Doc()
        for (const e of log.entries) if (e.at <= time) Y.applyUpdate(d, e.update)
        return d.getXmlFragment('pm').toString()
      }
      for (const to of [1200, 1500, 1800, 2190]) {
        const truth = truthAt(to)
        const cs = changeset(h, { from: to - 300, to, by: null })
        expect(render((cs.roots.pm?.delta ?? []) as ChangeNode[])).toBe(truth)
        const cut = new Y.Doc()
        Y.applyUpdate(cut, documentAt(h, to))
        expect(cut.getXmlFragment('pm').toString()).toBe(truth)
        const copy = new EditLog()
        for (const e of log.entries) copy.append(e.user, e.at, e.update)
        const r = rollback(h, wantAt(to))
        if (r.update) copy.append('carl', 9999, r.update)
        expect(copy.shared.getXmlFragment('pm').toString()).toBe(truth)
      }
    })
  }
})

/** Changeset nodes as Yjs prints a fragment (deleted content left out). */
function render(nodes: ChangeNode[]): string {
  return nodes
    .map((n) => {
      if ('element' in n) {
        if (n.attribution?.delete) return ''
        const attrs = Object.entries(n.attributes ?? {})
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => ` ${k}="${String(v)}"`)
          .join('')
        return `<${n.element}${attrs}>${render(n.children)}</${n.element}>`
      }
      return n.attribution?.delete ? '' : String(n.insert)
    })
    .join('')
}
