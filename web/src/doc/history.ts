// The history panel: who changed the document, when and how much (the collab `activity` route,
// refreshed as the document changes); choosing an entry shows its changeset; Restore (rw tokens
// only) rolls the document back to that entry through the `rollback` route, and the live document
// (every open editor) shows the result. Edits made with custom attributions (an AI agent's token)
// carry a badge of them, and *Undo this agent* undoes exactly that entry's window for those
// attributions (`rollback {from, to, attr}`): everyone else's edits stay.
import { said } from '../api.js'
import { colorOf } from '../colors.js'
import { fill, h, when } from '../dom.js'
import { authorsOf, renderChanges, type RootChange } from './changes.js'
import type { CollabSession } from './collab.js'

interface Entry {
  from: number
  to: number
  by: string
  inserted: number
  deleted: number
  attributes?: Record<string, string>
}

/** `source: ai · model: m1`: who is speaking first (`source`, `agent`), then the rest by name. */
const LEAD_KEYS = ['source', 'agent']
const rank = (k: string) => (LEAD_KEYS.includes(k) ? LEAD_KEYS.indexOf(k) : LEAD_KEYS.length)
const attributesText = (a: Record<string, string>) =>
  Object.keys(a)
    .sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0))
    .map((k) => `${k}: ${a[k]}`)
    .join(' · ')
const hasAttributes = (e: Entry): e is Entry & { attributes: Record<string, string> } =>
  e.attributes !== undefined && Object.keys(e.attributes).length > 0

const REFRESH_DEBOUNCE_MS = 700

export function historyPanel(session: CollabSession): { el: HTMLElement; destroy(): void } {
  const status = h('p', { class: 'panel-status', role: 'status' })
  const list = h('ol', { class: 'activity', 'aria-label': 'Changes, newest first' })
  const detail = h('div', { class: 'changeset', 'aria-live': 'polite' })
  const el = h(
    'section',
    { class: 'panel history', 'aria-labelledby': 'history-title' },
    h('h3', { id: 'history-title' }, 'History'),
    status,
    list,
    detail,
  )

  let entries: Entry[] = []
  let selected: string | null = null
  let destroyed = false
  const keyOf = (e: Entry) => `${e.from}-${e.to}-${e.by}${hasAttributes(e) ? `-${attributesText(e.attributes)}` : ''}`

  const drawList = () => {
    fill(list)
    for (const e of entries) {
      const k = keyOf(e)
      const button = h(
        'button',
        { type: 'button', class: 'entry', 'aria-pressed': String(k === selected), 'data-key': k },
        h('span', { class: 'dot', style: `background-color: ${colorOf(e.by)}`, 'aria-hidden': 'true' }),
        h('span', { class: 'by' }, e.by || 'unknown'),
        hasAttributes(e) ? h('span', { class: 'agent-badge' }, attributesText(e.attributes)) : null,
        h('time', { datetime: new Date(e.to).toISOString() }, when(e.to)),
        h(
          'span',
          { class: 'counts' },
          h('span', { class: 'ins-count' }, `+${e.inserted}`),
          ' ',
          h('span', { class: 'del-count' }, `−${e.deleted}`),
        ),
      )
      const agent = hasAttributes(e) ? ` (${attributesText(e.attributes)})` : ''
      button.setAttribute(
        'aria-label',
        `${e.by || 'unknown'}${agent}, ${when(e.to)}: ${e.inserted} inserted, ${e.deleted} deleted`,
      )
      button.addEventListener('click', () => void choose(e))
      list.append(h('li', {}, button))
    }
  }

  const refresh = async () => {
    try {
      const r = await said(
        session.rest.call<{ entries: Entry[]; more: boolean; truncated: boolean }>('activity', {
          query: { limit: 50 },
        }),
      )
      if (destroyed) return
      entries = r.entries
      status.textContent = entries.length ? (r.more ? 'The 50 latest changes.' : '') : 'No changes yet.'
      drawList()
    } catch (err) {
      if (!destroyed) status.textContent = `History unavailable: ${(err as Error).message}`
    }
  }

  const choose = async (e: Entry) => {
    selected = keyOf(e)
    drawList()
    fill(detail, h('p', {}, 'Loading the change…'))
    try {
      const cs = await said(
        session.rest.call<{ inserted: number; deleted: number; roots: Record<string, RootChange> }>('changeset', {
          query: { from: e.from, to: e.to },
        }),
      )
      if (destroyed || selected !== keyOf(e)) return
      const authors = authorsOf(cs.roots)
      const restore = h('button', { type: 'button', class: 'restore' }, 'Restore this version')
      const result = h('p', { class: 'restore-result', role: 'status' })
      if (session.readOnly) {
        restore.disabled = true
        restore.title = 'Restoring needs edit access'
      }
      restore.addEventListener('click', async () => {
        restore.disabled = true
        result.textContent = 'Restoring…'
        try {
          const r = await said(
            session.rest.call<{ applied: boolean; removed: number; restored: number }>('rollback', {
              method: 'POST',
              json: { to: e.to },
            }),
          )
          result.textContent = r.applied
            ? `Restored: ${r.removed} removed, ${r.restored} brought back. Every open editor shows it.`
            : 'Nothing to restore: the document already reads like this.'
        } catch (err) {
          result.textContent = `Restore failed: ${(err as Error).message}`
        } finally {
          restore.disabled = session.readOnly
        }
      })
      fill(
        detail,
        h(
          'h4',
          {},
          `Change by ${e.by}${hasAttributes(e) ? ` (${attributesText(e.attributes)})` : ''}, ${when(e.from)}${e.to !== e.from ? ` – ${when(e.to)}` : ''}`,
        ),
        h(
          'p',
          { class: 'legend' },
          `${cs.inserted} inserted, ${cs.deleted} deleted. `,
          ...authors.map((a) => h('span', { class: 'who-chip', style: `border-color: ${colorOf(a)}` }, a)),
        ),
        renderChanges(cs.roots),
        h(
          'div',
          { class: 'restore-row' },
          restore,
          h(
            'span',
            { class: 'hint' },
            session.readOnly
              ? ' Restoring needs edit access.'
              : ' Makes the document read as it did right after this change.',
          ),
        ),
        hasAttributes(e) ? undoAgentRow(e, result) : null,
        result,
      )
    } catch (err) {
      fill(detail, h('p', { class: 'error' }, `Could not load this change: ${(err as Error).message}`))
    }
  }

  // Undoes what this entry's attributions did in its window; people's edits, earlier or later, stay.
  const undoAgentRow = (e: Entry & { attributes: Record<string, string> }, result: HTMLElement) => {
    const undo = h('button', { type: 'button', class: 'undo-agent', disabled: session.readOnly }, 'Undo this agent')
    undo.addEventListener('click', async () => {
      undo.disabled = true
      result.textContent = 'Undoing…'
      try {
        const r = await said(
          session.rest.call<{ applied: boolean; removed: number; restored: number }>('rollback', {
            method: 'POST',
            json: { from: e.from, to: e.to, attr: e.attributes },
          }),
        )
        result.textContent = r.applied
          ? `Undone: ${r.removed} removed, ${r.restored} brought back. Other people's edits stay.`
          : 'Nothing to undo: this change is already gone.'
      } catch (err) {
        result.textContent = `Undo failed: ${(err as Error).message}`
      } finally {
        undo.disabled = session.readOnly
      }
    })
    const hint = session.readOnly
      ? ' Undoing needs edit access.'
      : ` Removes what ${attributesText(e.attributes)} did in this change; everyone else's edits stay.`
    return h('div', { class: 'restore-row' }, undo, h('span', { class: 'hint' }, hint))
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  const onUpdate = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void refresh(), REFRESH_DEBOUNCE_MS)
  }
  session.ydoc.on('update', onUpdate)
  void refresh()
  return {
    el,
    destroy() {
      destroyed = true
      clearTimeout(timer)
      session.ydoc.off('update', onUpdate)
    },
  }
}
