// Workspace search in the console's side bar: the words typed, the documents and tables the signed-in
// person may view that contain them (GET /api/v0/workspaces/{ws}/search through @tandem/client),
// best first, each with its snippet, a page at a time. The server marks the words found with « »;
// they become <mark> elements here, the rest of the snippet stays text.
import { said, type Api } from './api.js'
import { fill, h } from './dom.js'

type Result = Awaited<ReturnType<Api['search']>>['results'][number]

const PAGE = 20

/** The snippet's text with each «word» in a <mark>, built as nodes (never parsed as HTML). */
function markedSnippet(snippet: string): (Node | string)[] {
  const out: (Node | string)[] = []
  for (const [i, part] of snippet.split(/[«»]/).entries()) if (part) out.push(i % 2 === 1 ? h('mark', {}, part) : part)
  return out
}

export interface SearchBox {
  el: HTMLElement
  /** Clears the query and the results (another workspace was chosen). */
  reset(): void
}

/** `href(result)`: where a result leads (the console's hash of its asset). */
export function searchBox(api: Api, workspaceId: () => string, href: (r: Result) => string): SearchBox {
  const input = h('input', {
    type: 'search',
    id: 'search',
    name: 'q',
    maxlength: 500,
    autocomplete: 'off',
    placeholder: 'Words, "a phrase", -word',
  })
  const status = h('p', { class: 'search-status', role: 'status' })
  const list = h('ul', { class: 'search-results', 'aria-label': 'Search results' })
  const more = h('button', { type: 'button', class: 'link', hidden: true }, 'More results')
  let query = ''
  let next: number | undefined
  let asked = 0 // an answer to an older query is dropped

  const show = (r: Result) =>
    h(
      'li',
      {},
      h('a', { href: href(r) }, r.title || r.doc_id),
      r.table ? h('span', { class: 'search-table' }, ` table ${r.table}`) : null,
      r.match === 'title' ? null : h('p', { class: 'snippet' }, markedSnippet(r.snippet)),
    )

  const run = async (offset: number) => {
    const mine = ++asked
    status.textContent = 'Searching…'
    more.hidden = true
    try {
      const page = await said(api.search(workspaceId(), query, { limit: PAGE, offset }))
      if (mine !== asked) return
      if (offset === 0) fill(list)
      for (const r of page.results) list.append(show(r))
      next = page.next
      more.hidden = next === undefined
      const shown = list.children.length
      status.textContent =
        shown === 0
          ? `Nothing found for ${query}.`
          : `${shown} ${shown === 1 ? 'result' : 'results'}${next === undefined ? '' : ' so far'}.`
    } catch (err) {
      if (mine !== asked) return
      status.textContent = (err as Error).message
    }
  }

  const form = h(
    'form',
    { class: 'search', role: 'search' },
    h('label', { for: 'search' }, 'Search'),
    input,
    h('button', { type: 'submit' }, 'Search'),
  )
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    query = input.value.trim()
    if (query === '') return reset()
    void run(0)
  })
  more.addEventListener('click', () => {
    if (next !== undefined) void run(next)
  })

  const reset = () => {
    asked++
    query = ''
    next = undefined
    input.value = ''
    status.textContent = ''
    more.hidden = true
    fill(list)
  }
  return { el: h('div', { class: 'search-box' }, form, status, list, more), reset }
}
