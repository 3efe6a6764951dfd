import { describe, expect, it } from 'vitest'
import { decodeDocPath, splitDocName } from './doc-path.js'

describe('document paths', () => {
  it('decodes a path\'s segments and refuses what is no document name, as not_found', () => {
    expect(decodeDocPath('acme', 'doc%2D1')).toEqual({ org: 'acme', doc: 'doc-1' })
    for (const [org, doc] of [['acme', '%E0%A4%A'], ['ac%2Fme', 'd'], ['', 'd'], ['acme', 'a b']]) {
      expect(() => decodeDocPath(org!, doc!)).toThrow(expect.objectContaining({ code: 'not_found', message: 'bad document path' }))
    }
  })

  it('splits a Hocuspocus name in two, or answers null', () => {
    expect(splitDocName('acme/doc-1')).toEqual({ org: 'acme', doc: 'doc-1' })
    for (const name of ['acme', 'acme/doc/x', '/doc', 'acme/', 'acme/a b', 'a%2Fb/c/d']) expect(splitDocName(name)).toBeNull()
  })
})
