// `select=id,name,alias:col,*` -> SelectItem[]. Casts (`::type`), JSON paths and resource
// embedding (`rel(...)`) are not part of this surface and fail with a 400 naming `select`.
import type { SelectItem } from '@tandem/api/query'
import { Scanner } from './scanner.js'

const STOPS = ',:()'

export function parseSelect(value: string, param = 'select'): SelectItem[] {
  const s = new Scanner(value, param)
  const items: SelectItem[] = []
  for (;;) {
    s.skipSpaces()
    if (s.peek() === '*') {
      s.pos++
      s.skipSpaces()
      items.push({ kind: 'star' })
    } else {
      const first = s.name(STOPS, 'a column name')
      rejectExtras(s)
      if (s.eat(':')) {
        const column = s.name(STOPS, 'a column name after the alias')
        rejectExtras(s)
        items.push({ kind: 'column', column, alias: first })
      } else items.push({ kind: 'column', column: first })
    }
    if (s.done) return items
    s.expect(',', "',' between columns")
  }
}

function rejectExtras(s: Scanner): void {
  if (s.startsWith('::')) s.fail('casts (::) are not supported')
  if (s.peek() === '(') s.fail('resource embedding is not supported')
}
