// The suggestions panel: the document's open suggestions (the collab `suggestions` routes, see
// docs/suggestions.md), each split into hunks shown as what they delete and what they insert, with
// Accept and Reject for each hunk and for the whole. An accept is applied by the server through the
// room, so every open editor shows it as any other edit. The list is read again every 5 s.
import type { Suggestion, SuggestionShown } from '@tandem/client'
import { said } from '../api.js'
import { fill, h, when } from '../dom.js'
import type { CollabSession } from './collab.js'

const POLL_MS = 5000

type Hunk = SuggestionShown['hunks'][number]

export function suggestionsPanel(session: CollabSession): {
  el: HTMLElement
  refresh(): Promise<void>
  destroy(): void
} {
  const status = h('p', { class: 'panel-status suggestions-status', role: 'status' })
  const list = h('ol', { class: 'suggestions', 'aria-label': 'Open suggestions, newest first' })
  const reload = h('button', { type: 'button' }, 'Refresh')
  const el = h(
    'section',
    { class: 'panel suggestions-panel', 'aria-labelledby': 'suggestions-title' },
    h('h3', { id: 'suggestions-title' }, 'Suggestions'),
    session.readOnly ? h('p', { class: 'hint' }, 'Accepting and rejecting suggestions need edit access.') : reload,
    status,
    list,
  )
  let destroyed = false
  const rest = session.rest
  const say = (text: string, error = false) => {
    status.textContent = text
    status.classList.toggle('error', error)
  }

  const refresh = async () => {
    try {
      const open = await said(rest.suggestions('open'))
      const shown = await Promise.all(open.map((s) => said(rest.suggestion(s.id, 'markdown'))))
      if (destroyed) return
      fill(list)
      if (shown.length === 0) list.append(h('li', { class: 'hint' }, 'No open suggestions.'))
      for (const s of shown) list.append(item(s))
    } catch (err) {
      if (!destroyed) say(`Suggestions unavailable: ${(err as Error).message}`, true)
    }
  }
  reload.addEventListener('click', () => void refresh())

  const decide = async (s: Suggestion, action: 'accept' | 'reject', hunks?: string[]) => {
    const what = hunks ? `hunk ${hunks.join(', ')}` : 'the suggestion'
    try {
      const r = await said(
        action === 'accept' ? rest.acceptSuggestion(s.id, hunks) : rest.rejectSuggestion(s.id, hunks),
      )
      say(
        `${action === 'accept' ? 'Accepted' : 'Rejected'} ${what}${r.suggestion.status === 'open' ? '' : `: the suggestion is ${r.suggestion.status.replace('_', ' ')}`}.`,
      )
    } catch (err) {
      say(`Could not ${action} ${what}: ${(err as Error).message}`, true)
    }
    await refresh()
  }

  /**
   * A hunk that rewrites text in place reads best as one line with its deletions struck and its
   * insertions marked, word by word (the server's `words`); a hunk of whole blocks shows them apart.
   */
  const change = (hunk: Hunk): HTMLElement[] => {
    const before = String(hunk.before ?? '')
    const after = String(hunk.after ?? '')
    if (!before || !after)
      return [before ? h('del', { class: 'hunk-before' }, before) : h('ins', { class: 'hunk-after' }, after)]
    const kept = hunk.words.reduce((n, w) => n + (w.op === 'equal' ? w.text.length : 0), 0)
    if (kept < Math.min(before.length, after.length) / 3)
      return [h('del', { class: 'hunk-before' }, before), h('ins', { class: 'hunk-after' }, after)]
    return [
      h(
        'span',
        { class: 'hunk-inline' },
        hunk.words.map((w) =>
          w.op === 'equal' ? w.text : w.op === 'delete' ? h('del', {}, w.text) : h('ins', {}, w.text),
        ),
      ),
    ]
  }

  const button = (label: string, name: string, action: () => void) => {
    const b = h('button', { type: 'button', 'aria-label': name, disabled: session.readOnly }, label)
    b.addEventListener('click', action)
    return b
  }

  const item = (shown: SuggestionShown): HTMLElement => {
    const s = shown.suggestion
    const via = s.attributions?.source ? ` (${s.attributions.source})` : ''
    const hunks = h('ol', { class: 'hunks' })
    shown.hunks.forEach((hunk, i) => {
      const label = `hunk ${i + 1}`
      hunks.append(
        h(
          'li',
          { class: `hunk ${hunk.status}`, 'data-hunk': hunk.id },
          h('span', { class: 'hunk-label' }, `${label}${hunk.status === 'open' ? '' : ` (${hunk.status})`}`),
          change(hunk),
          hunk.status === 'open'
            ? h(
                'span',
                { class: 'hunk-actions' },
                button(
                  'Accept',
                  `Accept ${label} of the suggestion by ${s.by}`,
                  () => void decide(s, 'accept', [hunk.id]),
                ),
                button(
                  'Reject',
                  `Reject ${label} of the suggestion by ${s.by}`,
                  () => void decide(s, 'reject', [hunk.id]),
                ),
              )
            : '',
        ),
      )
    })
    return h(
      'li',
      { class: 'suggestion', 'data-id': s.id },
      h(
        'span',
        { class: 'suggestion-meta' },
        `${s.by}${via}, `,
        h('time', { datetime: new Date(s.created_at_ms).toISOString() }, when(s.created_at_ms)),
      ),
      shown.hunks.length ? hunks : h('p', { class: 'hint' }, 'A change to text that is not split into hunks.'),
      h(
        'span',
        { class: 'suggestion-actions' },
        button('Accept all', `Accept the suggestion by ${s.by}`, () => void decide(s, 'accept')),
        button('Reject all', `Reject the suggestion by ${s.by}`, () => void decide(s, 'reject')),
      ),
    )
  }

  void refresh()
  // New suggestions are not document changes, so no editor event tells of them: look every few seconds.
  const poll = setInterval(() => void refresh(), POLL_MS)
  return {
    el,
    refresh,
    destroy() {
      destroyed = true
      clearInterval(poll)
    },
  }
}
