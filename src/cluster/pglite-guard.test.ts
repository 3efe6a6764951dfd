import { describe, expect, it } from 'vitest'
import { AppError } from '../infra/errors.js'
import { assertProviderAllowed } from './pglite-guard.js'

describe('assertProviderAllowed', () => {
  it('refuses pglite in cluster mode with a 400 saying what to do instead, and allows everything else', () => {
    let err: unknown
    try {
      assertProviderAllowed('pglite', true)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).status).toBe(400)
    expect((err as AppError).message).toMatch(
      /without --provider .*tandem migrate --from-data-dir DIR --postgres-url URL/,
    )
    expect(() => assertProviderAllowed('postgres', true)).not.toThrow()
    expect(() => assertProviderAllowed('pglite', false)).not.toThrow()
  })
})
