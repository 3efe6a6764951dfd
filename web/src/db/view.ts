// A database asset: its tables, and rows read through the read-rows endpoint with filters, an order
// and paging. A 503 (database starting, suspended or busy) shows its Retry-After and retries.
import type { ColumnFilter, RowsQuery, TableRow } from '@tandem/client'
import { ApiError, said } from '../api.js'
import { fill, h, uid } from '../dom.js'
import type { View, ViewContext } from '../view.js'

type Row = TableRow

const OPERATORS: [string, string][] = [
  ['eq', 'equals'],
  ['neq', 'does not equal'],
  ['gt', 'greater than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['like', 'matches (case-sensitive, * wildcard)'],
  ['ilike', 'matches (any case, * wildcard)'],
  ['in', 'is one of (a,b,c)'],
  ['is', 'is null'],
]
const PAGE_SIZES = [10, 25, 50, 100]
const MAX_RETRIES = 30 // a resuming or starting PGlite may need tens of seconds on a busy machine

interface Filter {
  column: string
  op: string
  value: string
}

export function databaseView({ api, asset }: ViewContext): View {
  const status = h('p', { class: 'db-status', role: 'status', 'aria-live': 'polite' })
  const tableSelect = h('select', { id: 'db-table' })
  const filtersBox = h('div', { class: 'filters' })
  const columnsList = h('datalist', { id: 'db-columns' })
  const orderColumn = h('input', { id: 'db-order', list: 'db-columns', placeholder: 'column', autocomplete: 'off' })
  const orderDir = h(
    'select',
    { id: 'db-dir', 'aria-label': 'Direction' },
    h('option', { value: 'asc' }, 'ascending'),
    h('option', { value: 'desc' }, 'descending'),
  )
  const pageSize = h(
    'select',
    { id: 'db-page-size' },
    ...PAGE_SIZES.map((n) => h('option', { value: String(n) }, String(n))),
  )
  pageSize.value = '25'
  const addFilter = h('button', { type: 'button', class: 'small' }, 'Add filter')
  const apply = h('button', { type: 'submit' }, 'Apply')
  const grid = h('div', { class: 'grid-wrap', tabindex: '0', 'aria-label': 'Rows' })
  // Disabled until a page of rows says where it stands.
  const prev = h('button', { type: 'button', disabled: true }, 'Previous page')
  const next = h('button', { type: 'button', disabled: true }, 'Next page')
  const pageInfo = h('span', { class: 'page-info', 'aria-live': 'polite' })
  const retryNow = h('button', { type: 'button', class: 'small', hidden: true }, 'Retry now')

  const form = h(
    'form',
    { class: 'query', 'aria-label': 'Row query' },
    h('fieldset', {}, h('legend', {}, 'Filters'), filtersBox, addFilter),
    h(
      'div',
      { class: 'row' },
      h('label', { for: 'db-order' }, 'Order by'),
      orderColumn,
      orderDir,
      h('label', { for: 'db-page-size' }, 'Rows per page'),
      pageSize,
      apply,
    ),
    columnsList,
  )
  const el = h(
    'section',
    { class: 'db', 'aria-labelledby': 'db-title' },
    h('h2', { id: 'db-title' }, asset.title, ' ', h('span', { class: 'type' }, 'database')),
    h('div', { class: 'row' }, h('label', { for: 'db-table' }, 'Table'), tableSelect),
    form,
    h('p', {}, status, retryNow),
    grid,
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, pageInfo, next),
  )

  let destroyed = false
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let countdown: ReturnType<typeof setInterval> | undefined
  let offset = 0
  let filters: Filter[] = []
  let columns: string[] = []
  let seq = 0

  const stopRetry = () => {
    clearTimeout(retryTimer)
    clearInterval(countdown)
    retryNow.hidden = true
  }

  /** Runs `fn`; a 503 is shown with its Retry-After and retried (bounded), anything else is shown as is. */
  const withRetry = async <T>(what: string, fn: () => Promise<T>, attempt = 0): Promise<T | undefined> => {
    stopRetry()
    try {
      return await fn()
    } catch (err) {
      if (destroyed) return undefined
      if (err instanceof ApiError && err.status === 503 && attempt < MAX_RETRIES) {
        let left = err.retryAfterSec ?? 1
        const say = () =>
          (status.textContent = `${err.message} Retry-After: ${err.retryAfterSec ?? 1} s; retrying ${what} in ${left} s (attempt ${attempt + 1} of ${MAX_RETRIES}).`)
        say()
        status.className = 'db-status warn'
        retryNow.hidden = false
        return new Promise((resolve) => {
          const go = () => {
            stopRetry()
            resolve(withRetry(what, fn, attempt + 1))
          }
          countdown = setInterval(() => {
            left = Math.max(0, left - 1)
            say()
          }, 1000)
          retryTimer = setTimeout(go, (err.retryAfterSec ?? 1) * 1000)
          retryNow.onclick = go
        })
      }
      status.textContent = (err as Error).message
      status.className = 'db-status error'
      return undefined
    }
  }

  const drawFilters = () => {
    fill(filtersBox)
    if (!filters.length) filtersBox.append(h('p', { class: 'hint' }, 'No filters: every row.'))
    filters.forEach((f, i) => {
      const colId = uid('fcol')
      const opId = uid('fop')
      const valId = uid('fval')
      const col = h('input', { id: colId, list: 'db-columns', value: f.column, autocomplete: 'off', required: true })
      const op = h('select', { id: opId }, ...OPERATORS.map(([v, label]) => h('option', { value: v }, label)))
      op.value = f.op
      const val = h('input', { id: valId, value: f.value, autocomplete: 'off' })
      const remove = h('button', { type: 'button', class: 'small', 'aria-label': `Remove filter ${i + 1}` }, 'Remove')
      col.addEventListener('input', () => (f.column = col.value))
      op.addEventListener('change', () => {
        f.op = op.value
        val.disabled = f.op === 'is'
      })
      val.disabled = f.op === 'is'
      val.addEventListener('input', () => (f.value = val.value))
      remove.addEventListener('click', () => {
        filters.splice(i, 1)
        drawFilters()
        addFilter.focus()
      })
      filtersBox.append(
        h(
          'div',
          { class: 'filter', role: 'group', 'aria-label': `Filter ${i + 1}` },
          h('label', { for: colId }, 'Column'),
          col,
          h('label', { for: opId }, 'Condition'),
          op,
          h('label', { for: valId }, 'Value'),
          val,
          remove,
        ),
      )
    })
  }

  const condition = (f: Filter): ColumnFilter => {
    if (f.op === 'is') return { is: null }
    if (f.op === 'in') return { in: f.value.replace(/^\((.*)\)$/, '$1').split(',') }
    return { [f.op]: f.value } as ColumnFilter
  }
  const rowsQuery = (): RowsQuery => {
    const where: Record<string, ColumnFilter[]> = {}
    for (const f of filters) if (f.column.trim()) (where[f.column.trim()] ??= []).push(condition(f))
    return {
      limit: Number(pageSize.value) + 1, // one more tells whether a next page exists
      offset,
      where,
      ...(orderColumn.value.trim()
        ? { order: [{ column: orderColumn.value.trim(), direction: orderDir.value as 'asc' | 'desc' }] }
        : {}),
    }
  }

  const drawRows = (rows: Row[], size: number) => {
    const shown = rows.slice(0, size)
    for (const r of shown) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k)
    fill(columnsList, ...columns.map((c) => h('option', { value: c })))
    const table = h('table', { class: 'rows' })
    const first = shown.length ? offset + 1 : 0
    table.append(h('caption', {}, `${tableSelect.value}: rows ${first}–${offset + shown.length}`))
    const cols = shown.length ? Object.keys(shown[0]!) : columns
    table.append(h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))))
    const body = h('tbody')
    for (const r of shown) {
      body.append(
        h(
          'tr',
          {},
          ...cols.map((c) => {
            const v = r[c]
            return h(
              'td',
              { class: v === null ? 'null' : typeof v === 'number' ? 'num' : '' },
              v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v),
            )
          }),
        ),
      )
    }
    table.append(body)
    fill(grid, shown.length ? table : h('p', { class: 'hint' }, offset ? 'No more rows.' : 'No rows match.'))
    prev.disabled = offset === 0
    next.disabled = rows.length <= size
    pageInfo.textContent = shown.length
      ? `Page ${Math.floor(offset / size) + 1} · rows ${first}–${offset + shown.length}`
      : ''
  }

  const loadRows = async () => {
    const my = ++seq
    const size = Number(pageSize.value)
    const table = tableSelect.value
    if (!table) return
    status.className = 'db-status'
    status.textContent = 'Loading rows…'
    const r = await withRetry('the rows', () => said(api.rows(asset.id, table, rowsQuery())))
    if (!r || destroyed || my !== seq) return
    status.textContent = ''
    drawRows(r, size)
  }

  const loadTables = async () => {
    status.textContent = 'Loading tables…'
    const r = await withRetry('the table list', () => said(api.tables(asset.id)))
    if (!r || destroyed) return
    fill(
      tableSelect,
      ...r.tables.map((t) =>
        h(
          'option',
          { value: t.name },
          `${t.schema && t.schema !== 'public' ? `${t.schema}.` : ''}${t.name}${t.row_count != null ? ` (~${t.row_count} rows)` : ''}`,
        ),
      ),
    )
    if (!r.tables.length) {
      status.textContent = 'This database has no tables.'
      return
    }
    await loadRows()
  }

  tableSelect.addEventListener('change', () => {
    offset = 0
    filters = []
    columns = []
    orderColumn.value = ''
    drawFilters()
    void loadRows()
  })
  addFilter.addEventListener('click', () => {
    filters.push({ column: columns[0] ?? '', op: 'eq', value: '' })
    drawFilters()
    filtersBox.querySelector<HTMLInputElement>('.filter:last-child input')?.focus()
  })
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    offset = 0
    void loadRows()
  })
  prev.addEventListener('click', () => {
    offset = Math.max(0, offset - Number(pageSize.value))
    void loadRows()
  })
  next.addEventListener('click', () => {
    offset += Number(pageSize.value)
    void loadRows()
  })
  drawFilters()
  void loadTables()
  return {
    el,
    destroy() {
      destroyed = true
      stopRetry()
    },
  }
}
