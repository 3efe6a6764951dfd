// `order=a.desc,b.asc.nullslast,c.nullsfirst` -> OrderTerm[].
import type { OrderTerm } from '@tandem/api/query'
import { Scanner } from './scanner.js'

export function parseOrder(value: string, param = 'order'): OrderTerm[] {
  const s = new Scanner(value, param)
  const terms: OrderTerm[] = []
  for (;;) {
    const term: OrderTerm = { column: s.name(',.', 'a column name') }
    while (s.eat('.')) {
      const at = s.pos
      const word = s.until(',.').trim()
      if ((word === 'asc' || word === 'desc') && !term.direction && !term.nulls) term.direction = word
      else if ((word === 'nullsfirst' || word === 'nullslast') && !term.nulls)
        term.nulls = word === 'nullsfirst' ? 'first' : 'last'
      else {
        s.pos = at
        s.fail(
          `unexpected order modifier ${JSON.stringify(word)} (expected asc, desc, nullsfirst or nullslast, in that order)`,
        )
      }
    }
    terms.push(term)
    if (s.done) return terms
    s.expect(',', "',' between order terms")
  }
}
