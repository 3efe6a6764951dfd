import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { newSecret, signedHeaders } from './signing.js'

describe('webhook signing', () => {
  it('is verified by the Standard Webhooks reference library', () => {
    const secret = newSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const body = JSON.stringify({ type: 'rows.inserted', timestamp: new Date().toISOString(), data: { count: 1 } })
    const headers = signedHeaders(secret, 'msg_1', Date.now(), body)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('fails verification for another secret or a changed body', () => {
    const secret = newSecret()
    const headers = signedHeaders(secret, 'msg_2', Date.now(), '{"a":1}')
    expect(() => new Webhook(newSecret()).verify('{"a":1}', headers)).toThrow()
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow()
  })
})
