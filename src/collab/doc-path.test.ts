import { describe, expect, it } from 'vitest'
import { decodeDocPath, splitHocusName } from './doc-path.js'

describe('document paths', () => {
  it("decodes a path's segments and refuses what is no document name, as not_found", () => {
    expect(decodeDocPath('acme', 'doc%2D1')).toEqual({ org: 'acme', doc: 'doc-1' })
    for (const [org, doc] of [
      ['acme', '%E0%A4%A'],
      ['ac%2Fme', 'd'],
      ['', 'd'],
      ['acme', 'a b'],
    ]) {
      expect(() => decodeDocPath(org!, doc!)).toThrow(
        expect.objectContaining({ code: 'not_found', message: 'bad document path' }),
      )
    }
  })

  it('splits a Hocuspocus name, with or without a session, or answers null', () => {
    expect(splitHocusName('acme/doc-1')).toEqual({ org: 'acme', doc: 'doc-1', session: null })
    expect(splitHocusName('acme/doc-1\0k3x9q2ab1')).toEqual({ org: 'acme', doc: 'doc-1', session: 'k3x9q2ab1' })
    const bad = [
      'acme',
      'acme/doc/x',
      '/doc',
      'acme/',
      'acme/a b',
      'a%2Fb/c/d',
      'acme/doc\0',
      'acme/doc\0a b',
      'acme/doc\0a\0b',
      'acme\0s/doc',
      `acme/doc\0${'s'.repeat(65)}`,
    ]
    for (const name of bad) expect(splitHocusName(name)).toBeNull()
  })
})
