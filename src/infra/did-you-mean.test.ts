import { describe, expect, it } from 'vitest'
import { closest, didYouMean } from './did-you-mean.js'

const FLAGS = ['collab-port', 'api-port', 'data-dir', 'demo', 'host', 'log-level']

describe('closest', () => {
  it('finds a typo: a letter missing, extra, wrong or two swapped', () => {
    expect(closest('colab-port', FLAGS)).toBe('collab-port')
    expect(closest('data-dirr', FLAGS)).toBe('data-dir')
    expect(closest('api-pord', FLAGS)).toBe('api-port')
    expect(closest('hsot', FLAGS)).toBe('host')
    expect(closest('srve', ['serve', 'token', 'keys', 'admin'])).toBe('serve')
  })
  it('finds the one name a prefix starts', () => {
    expect(closest('collab', FLAGS)).toBe('collab-port')
    expect(closest('log', FLAGS)).toBe('log-level')
  })
  it('offers nothing for what is not close to any name', () => {
    expect(closest('banana', FLAGS)).toBeNull()
    expect(closest('x', FLAGS)).toBeNull()
    expect(closest('de', FLAGS)).toBeNull() // too short to be a prefix, two letters off `demo`
  })
})

describe('didYouMean', () => {
  it('renders the suggestion, or nothing', () => {
    expect(didYouMean('colab-port', FLAGS, (f) => `--${f}`)).toBe('; did you mean --collab-port?')
    expect(didYouMean('banana', FLAGS)).toBe('')
  })
})
