// Comment threads beside the document (asset content with include_comments). Anchored threads quote
// their text and a button selects it in the editor, where it is highlighted.
import * as Y from 'yjs'
import { said, type Api } from '../api.js'
import { fill, h, when } from '../dom.js'
import type { Anchor } from './editor.js'

interface Thread {
  id: string
  level: 'asset' | 'anchor'
  resolved_at?: string | null
  archived_at?: string | null
  created_at?: string | null
  data?: { anchor?: { start: string; end: string; text: string | null } }
  comments?: {
    id: string
    text: string
    user_id?: string | null
    created_at?: string | null
    reactions?: Record<string, string[]>
  }[]
}

const decodeB64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))

export function commentsPanel(
  api: Api,
  assetId: string,
  hooks: { setAnchors(a: Anchor[]): void; showAnchor(id: string): boolean; noEditor?: boolean },
) {
  const status = h('p', { class: 'panel-status', role: 'status' }, 'Loading comments…')
  const list = h('div', { class: 'threads' })
  const reload = h('button', { type: 'button', class: 'small' }, 'Reload')
  const el = h(
    'section',
    { class: 'panel comments', 'aria-labelledby': 'comments-title' },
    h('div', { class: 'panel-head' }, h('h3', { id: 'comments-title' }, 'Comments'), reload),
    status,
    list,
  )

  const load = async () => {
    try {
      // The schema leaves a thread's `data` open; the anchor's shape is docs/api-v0.md's.
      const r = (await said(api.assetContent(assetId, { comments: true }))) as { comments: Thread[] | null }
      const threads = r.comments
      fill(list)
      if (threads === null) {
        status.textContent = 'The comment data of this asset could not be read.'
        return
      }
      status.textContent = threads.length ? '' : 'No comment threads.'
      const anchors: Anchor[] = []
      for (const t of threads) {
        const state = t.archived_at ? 'archived' : t.resolved_at ? 'resolved' : 'open'
        const anchor = t.data?.anchor
        if (anchor) {
          try {
            anchors.push({
              threadId: t.id,
              start: Y.decodeRelativePosition(decodeB64(anchor.start)),
              end: Y.decodeRelativePosition(decodeB64(anchor.end)),
            })
          } catch {
            // an anchor that cannot be decoded is shown without a highlight
          }
        }
        const show = h('button', { type: 'button', class: 'small' }, 'Show in document')
        const note = h('span', { class: 'hint', role: 'status' })
        show.addEventListener('click', () => {
          note.textContent = hooks.showAnchor(t.id) ? '' : ' The anchored text is no longer in the document.'
        })
        list.append(
          h(
            'article',
            { class: `thread ${state}`, 'aria-label': `${state} thread` },
            h('p', { class: 'thread-state' }, state, t.level === 'anchor' ? ' · anchored' : ' · on the asset'),
            anchor ? h('blockquote', { class: 'quote' }, anchor.text ?? '(the anchored text was deleted)') : null,
            anchor && !hooks.noEditor ? h('p', {}, show, note) : null,
            h(
              'ul',
              { class: 'comment-list' },
              ...(t.comments ?? []).map((c) =>
                h(
                  'li',
                  {},
                  h(
                    'p',
                    { class: 'meta' },
                    h('strong', {}, c.user_id ?? 'unknown'),
                    c.created_at ? ` · ${when(Date.parse(c.created_at))}` : '',
                  ),
                  h('p', {}, c.text),
                  Object.keys(c.reactions ?? {}).length
                    ? h(
                        'p',
                        { class: 'reactions' },
                        ...Object.entries(c.reactions!).map(([emoji, users]) =>
                          h('span', { class: 'reaction', title: users.join(', ') }, `${emoji} ${users.length}`),
                        ),
                      )
                    : null,
                ),
              ),
            ),
          ),
        )
      }
      hooks.setAnchors(anchors)
    } catch (err) {
      status.textContent = `Comments unavailable: ${(err as Error).message}`
    }
  }
  reload.addEventListener('click', () => void load())
  return { el, load }
}
