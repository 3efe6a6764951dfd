// The API key lives in this tab's sessionStorage only: never in a URL, a cookie or a log.
const KEY = 'tandem.apiKey'

export const session = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
}
