// What the console's browser tests do on a page: sign in, and read an editor's text as a person sees it.
import type { Page } from 'playwright-core'

export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('.who').waitFor()
}

// Runs in the page (the tests are compiled without DOM types, hence the source text).
const TEXT_OF = `(pm) => [...pm.children].map((block) => {
  const copy = block.cloneNode(true)
  for (const caret of copy.querySelectorAll('.remote-caret')) caret.remove()
  return copy.textContent ?? ''
}).join('\\n')`

/** An editor's text, one line per block, without the remote cursors' name labels. */
export const textOf = (page: Page, selector = '.ProseMirror') =>
  page.evaluate(`(${TEXT_OF})(document.querySelector(${JSON.stringify(selector)}))`) as Promise<string>
