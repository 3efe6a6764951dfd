import { describe, expect, it } from 'vitest'
import { wordChanges } from './word-changes.js'

describe('word changes of a hunk', () => {
  it('marks whole words changed, keeping the rest and the white space as it was', () => {
    expect(wordChanges('The quick brown fox.', 'The slow brown fox jumps.')).toEqual([
      { op: 'equal', text: 'The ' },
      { op: 'delete', text: 'quick' },
      { op: 'insert', text: 'slow' },
      { op: 'equal', text: ' brown ' },
      { op: 'delete', text: 'fox.' },
      { op: 'insert', text: 'fox jumps.' },
    ])
  })

  it('reads back as the before (equal and delete) and the after (equal and insert)', () => {
    const before = 'Alpha  beta\ngamma delta — epsilon'
    const after = 'Alpha beta\ngamma δ — epsilon zeta'
    const changes = wordChanges(before, after)
    expect(
      changes
        .filter((c) => c.op !== 'insert')
        .map((c) => c.text)
        .join(''),
    ).toBe(before)
    expect(
      changes
        .filter((c) => c.op !== 'delete')
        .map((c) => c.text)
        .join(''),
    ).toBe(after)
  })

  it('shows a block added or removed whole, and nothing for no text', () => {
    expect(wordChanges('', 'New paragraph.')).toEqual([{ op: 'insert', text: 'New paragraph.' }])
    expect(wordChanges('Gone.', '')).toEqual([{ op: 'delete', text: 'Gone.' }])
    expect(wordChanges('', '')).toEqual([])
  })

  it('shows a hunk of more distinct words than it has symbols for whole, never split wrong', () => {
    const many = Array.from({ length: 60_000 }, (_, i) => `w${i}`).join(' ')
    expect(wordChanges(many, 'short')).toEqual([
      { op: 'delete', text: many },
      { op: 'insert', text: 'short' },
    ])
  })
})
