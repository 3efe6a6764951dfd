// Assets that are neither documents nor databases: their stored text, as the asset content endpoint returns it.
import { said } from './api.js'
import { h } from './dom.js'
import type { View, ViewContext } from './view.js'

export function contentView({ api, asset }: ViewContext): View {
  const status = h('p', { role: 'status' }, 'Loading…')
  const body = h('pre', { class: 'asset-text', tabindex: '0', 'aria-label': `Content of ${asset.title}` })
  const el = h(
    'section',
    { class: 'asset', 'aria-labelledby': 'asset-title' },
    h('h2', { id: 'asset-title' }, asset.title, ' ', h('span', { class: 'type' }, asset.type)),
    status,
    body,
  )
  said(api.assetContent(asset.id))
    .then((r) => {
      status.textContent = r.content ? '' : 'This asset has no content.'
      body.textContent = r.content
    })
    .catch((err: Error) => {
      status.textContent = err.message
      status.className = 'error'
    })
  return { el, destroy() {} }
}
