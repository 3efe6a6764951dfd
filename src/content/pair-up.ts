// Which old children become which new ones in a changed stretch of a fragment update
// (fragment-update.ts): an order-keeping matching of children of the same kind that maximises how
// alike their texts are.
import * as Y from 'yjs'
import type { PmNode } from './pm-json.js'
import type { TextRun } from './text-update.js'

/** A child as Yjs stores it: an element, or one Y.XmlText for a run of text nodes. */
export type Kid = { kind: 'el'; node: PmNode } | { kind: 'text'; runs: TextRun[] }
export type YKid = Y.XmlElement | Y.XmlText

const compatible = (y: YKid, k: Kid) =>
  k.kind === 'text' ? y instanceof Y.XmlText : y instanceof Y.XmlElement && y.nodeName === k.node.type

/** How alike two texts are, 0 to 1: their common start and end over the longer one. */
function likeness(a: string, b: string): number {
  const max = Math.max(a.length, b.length)
  if (max === 0) return 1
  const min = Math.min(a.length, b.length)
  let pre = 0
  while (pre < min && a.charCodeAt(pre) === b.charCodeAt(pre)) pre++
  let suf = 0
  while (suf < min - pre && a.charCodeAt(a.length - 1 - suf) === b.charCodeAt(b.length - 1 - suf)) suf++
  return (pre + suf) / max
}

/** Past this many pairs to weigh, a stretch pairs greedily in order instead. */
const MAX_WEIGHED = 40_000

/**
 * Which old children become which new ones in a changed stretch: an order-keeping matching of
 * children of the same kind that maximises how alike their texts are (so an edited paragraph is
 * edited in place, never a neighbour rewritten into it while it is deleted: a person's concurrent
 * edit inside it then survives). Every compatible pair weighs a little, so same-kind children
 * still pair when nothing is alike.
 */
export function pairUp(ys: YKid[], yTexts: string[], ks: Kid[], kTexts: string[]): [number, number][] {
  const n = ys.length
  const m = ks.length
  if (n === 0 || m === 0) return []
  if (n * m > MAX_WEIGHED) {
    const pairs: [number, number][] = []
    let next = 0
    for (let k = 0; k < m; k++) {
      for (let y = next; y < n; y++) {
        if (compatible(ys[y]!, ks[k]!)) {
          pairs.push([y, k])
          next = y + 1
          break
        }
      }
    }
    return pairs
  }
  // best[i][j]: the best total for ys[i..] and ks[j..]
  const best = Array.from({ length: n + 1 }, () => new Float64Array(m + 1))
  const weight = (i: number, j: number) => (compatible(ys[i]!, ks[j]!) ? 0.01 + likeness(yTexts[i]!, kTexts[j]!) : -1)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const w = weight(i, j)
      best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, w > 0 ? w + best[i + 1]![j + 1]! : -Infinity)
    }
  }
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    const w = weight(i, j)
    if (w > 0 && best[i]![j] === w + best[i + 1]![j + 1]!) pairs.push([i++, j++])
    else if (best[i]![j] === best[i + 1]![j]) i++
    else j++
  }
  return pairs
}
