import { describe, expect, it } from 'vitest'
import { bodyTexts } from './stream-body.js'

async function* piecesOf(...parts: (string | Uint8Array)[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? new TextEncoder().encode(p) : p
}

async function all(texts: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = []
  for await (const t of texts) out.push(t)
  return out
}

describe('a stream body read as it arrives', () => {
  it('raw text: a character cut between two pieces is decoded whole, with the second', async () => {
    const euro = new TextEncoder().encode('€')
    const texts = await all(
      bodyTexts(piecesOf('costs 5 ', euro.subarray(0, 2), euro.subarray(2), '.'), 'text/markdown'),
    )
    expect(texts).toEqual(['costs 5 ', '€', '.'])
  })

  it('raw text that is not UTF-8 is refused', async () => {
    await expect(all(bodyTexts(piecesOf(new Uint8Array([0x61, 0xff])), 'text/plain'))).rejects.toThrow(
      'the body is not valid UTF-8',
    )
  })

  it('NDJSON: a line cut between pieces waits for its end; blank lines are skipped; the last needs no newline', async () => {
    const body = ['{"text": "# Ti', 'tle"}\n\n{"text":"\\n\\nOne"}\r\n', '{"text": " two"}']
    expect(await all(bodyTexts(piecesOf(...body), 'application/x-ndjson; charset=utf-8'))).toEqual([
      '# Title',
      '\n\nOne',
      ' two',
    ])
  })

  it('NDJSON: a line that is not {"text": string} is refused by its number', async () => {
    const read = (body: string) => all(bodyTexts(piecesOf(body), 'application/x-ndjson'))
    await expect(read('{"text":"a"}\nnot json\n')).rejects.toThrow('line 2 is not JSON')
    await expect(read('{"text": 1}\n')).rejects.toThrow('line 1 is not {"text": "..."}')
    await expect(read('["text"]\n')).rejects.toThrow('line 1 is not {"text": "..."}')
  })
})
