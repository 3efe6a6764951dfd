// Sign-in: an API key checked against GET /api/v0/me before it is kept for the tab.
import { apiClient, said, type Me } from './api.js'
import { h } from './dom.js'

export function signInView(onSignedIn: (key: string, me: Me) => void, notice?: string): HTMLElement {
  const input = h('input', {
    id: 'api-key',
    type: 'password',
    name: 'api-key',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'api-key-help',
  })
  const error = h('p', { class: 'error', role: 'alert', id: 'signin-error' }, notice ?? '')
  const button = h('button', { type: 'submit' }, 'Sign in')
  const form = h(
    'form',
    { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h2', { id: 'signin-title' }, 'Sign in'),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h(
      'p',
      { id: 'api-key-help', class: 'hint' },
      'A key from `tandem admin keys create`, or the `demo api key` line printed by `tandem serve --demo`. It is kept in this tab only and forgotten when the tab closes.',
    ),
    button,
    error,
  )
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const key = input.value.trim()
    if (!key) {
      error.textContent = 'Enter an API key.'
      return
    }
    button.disabled = true
    error.textContent = ''
    try {
      const me = await said(apiClient(key).me())
      onSignedIn(key, me)
    } catch (err) {
      error.textContent = (err as Error).message
      input.focus()
      input.select()
    } finally {
      button.disabled = false
    }
  })
  queueMicrotask(() => input.focus())
  return form
}
