// The console's shell: sign-in, the workspace and asset list, and the view of the chosen asset.
// The location hash names the open asset (`#/w/{workspace}/a/{asset}`); it never carries the key.
import 'prosemirror-view/style/prosemirror.css'
import './console.css'
import { administers, apiClient, ApiError, said, type Api, type AssetSummary, type Me } from './api.js'
import { deleteButton, deletedList } from './asset-admin.js'
import { contentView } from './content-view.js'
import { databaseView } from './db/view.js'
import { docView } from './doc/view.js'
import { searchBox } from './search.js'
import { fill, h } from './dom.js'
import { session } from './session.js'
import { signInView } from './signin.js'
import type { View } from './view.js'

const root = document.getElementById('app')!
let current: View | null = null

function closeView(): void {
  current?.destroy()
  current = null
}

function showSignIn(notice?: string): void {
  // The signed-out app must not react to navigation (it would open views with the old key).
  window.onhashchange = null
  closeView()
  fill(
    root,
    h('header', { class: 'top' }, h('h1', {}, 'Tandem console')),
    h(
      'main',
      { class: 'center', id: 'main' },
      signInView((key, me) => {
        session.set(key)
        showApp(apiClient(key), me)
      }, notice),
    ),
  )
}

function parseHash(): { ws?: string; asset?: string } {
  const m = /^#\/w\/([^/?]+)(?:\/a\/([^/?]+))?/.exec(location.hash)
  return m ? { ws: decodeURIComponent(m[1]!), ...(m[2] ? { asset: decodeURIComponent(m[2]) } : {}) } : {}
}

function showApp(api: Api, me: Me): void {
  const main = h('main', { id: 'main', class: 'content', tabindex: '-1' })
  const wsSelect = h('select', { id: 'workspace' })
  const assetList = h('ul', { class: 'assets', 'aria-labelledby': 'assets-title' })
  const navStatus = h('p', { class: 'nav-status', role: 'status' })
  const assetHref = (wsId: string, assetId: string) =>
    `#/w/${encodeURIComponent(wsId)}/a/${encodeURIComponent(assetId)}`
  const search = searchBox(
    api,
    () => wsSelect.value,
    (r) => assetHref(wsSelect.value, r.doc_id),
  )
  // Owners and admins see the deleted assets of their workspace and may restore them.
  const bin = deletedList(api, (a) => {
    if (parseHash().asset === a.id) void loadWorkspace(wsSelect.value, a.id)
    else void listAssets(wsSelect.value)
  })
  const signOut = h('button', { type: 'button', class: 'link' }, 'Sign out')
  signOut.addEventListener('click', () => {
    session.clear()
    location.hash = ''
    showSignIn('Signed out.')
  })
  fill(
    root,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'Tandem console'),
      h('span', { class: 'who' }, 'Signed in as ', h('strong', {}, me.user_id)),
      signOut,
    ),
    h(
      'div',
      { class: 'layout' },
      h(
        'nav',
        { class: 'side', 'aria-label': 'Workspaces and assets' },
        h('label', { for: 'workspace' }, 'Workspace'),
        wsSelect,
        search.el,
        h('h2', { id: 'assets-title' }, 'Assets'),
        navStatus,
        assetList,
        bin.el,
      ),
      main,
    ),
  )
  if (me.workspaces.length === 0) {
    fill(
      main,
      h(
        'p',
        {},
        `${me.user_id} is not a member of any workspace yet. An operator adds members with \`tandem admin members set\`.`,
      ),
    )
    return
  }
  for (const w of me.workspaces) wsSelect.append(h('option', { value: w.id }, `${w.name} (${w.role})`))

  let assets: AssetSummary[] = []
  const open = (assetId: string | undefined) => {
    closeView()
    for (const b of assetList.querySelectorAll('a')) b.removeAttribute('aria-current')
    const a = assets.find((x) => x.id === assetId)
    if (!a) {
      fill(
        main,
        h(
          'p',
          { class: 'hint' },
          assets.length ? 'Choose an asset on the left.' : 'This workspace has no asset you can open.',
        ),
      )
      return
    }
    assetList.querySelector(`a[data-id="${CSS.escape(a.id)}"]`)?.setAttribute('aria-current', 'page')
    const ctx = { api, me, asset: a, workspaceId: wsSelect.value }
    current = a.type === 'generic_doc' ? docView(ctx) : a.type === 'database' ? databaseView(ctx) : contentView(ctx)
    const tools = administers(me, ctx.workspaceId)
      ? h(
          'div',
          { class: 'asset-tools' },
          deleteButton(api, a, deleted, (msg) => (navStatus.textContent = msg)),
        )
      : null
    fill(main, tools, current.el)
  }
  // The open view stays: a document shows by itself that it was deleted (its socket closed 4404).
  const deleted = async (msg: string) => {
    await listAssets(wsSelect.value)
    navStatus.textContent = msg
    void bin.reload(wsSelect.value)
  }

  /** Fetches and draws the asset list; false when the key is no longer accepted. */
  const listAssets = async (wsId: string): Promise<boolean> => {
    navStatus.textContent = 'Loading assets…'
    try {
      assets = (await said(api.workspaceAssets(wsId))).assets
      navStatus.textContent = ''
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        showSignIn('Your API key is no longer accepted; sign in again.')
        return false
      }
      navStatus.textContent = (err as Error).message
      assets = []
    }
    fill(assetList)
    const open = parseHash().asset
    for (const a of assets) {
      const href = assetHref(wsId, a.id)
      const link = h(
        'a',
        { href, 'data-id': a.id },
        h('span', { class: `badge t-${a.type}` }, label(a.type)),
        ' ',
        a.title,
      )
      if (a.id === open && current) link.setAttribute('aria-current', 'page')
      assetList.append(h('li', {}, link))
    }
    return true
  }

  const loadWorkspace = async (wsId: string, assetId?: string) => {
    if (wsSelect.value !== wsId) search.reset()
    wsSelect.value = wsId
    fill(assetList)
    const admin = administers(me, wsId)
    bin.el.hidden = !admin
    if (admin) void bin.reload(wsId)
    if (await listAssets(wsId)) open(assetId)
  }

  wsSelect.addEventListener('change', () => {
    location.hash = `#/w/${encodeURIComponent(wsSelect.value)}`
  })
  const route = () => {
    const r = parseHash()
    const ws = me.workspaces.some((w) => w.id === r.ws) ? r.ws! : me.workspaces[0]!.id
    if (ws !== wsSelect.value || assets.length === 0) void loadWorkspace(ws, r.asset)
    else open(r.asset)
    if (r.asset) main.focus({ preventScroll: true })
  }
  window.onhashchange = route
  wsSelect.value = ''
  route()
}

const label = (type: string) => ({ generic_doc: 'doc', database: 'db' })[type] ?? type

async function boot(): Promise<void> {
  const key = session.get()
  if (!key) return showSignIn()
  try {
    showApp(apiClient(key), await said(apiClient(key).me()))
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) session.clear()
    showSignIn((err as Error).message)
  }
}

void boot()
