// Targeted edits under concurrency (issue 46, "lose nothing"): a person types with the stock
// y-websocket provider at about 5 characters a second into three paragraphs, while a scripted
// agent makes targeted edits over REST in the same paragraphs and the ones next to them
// (str_replace, inserts after blocks, deletes of its own inserts), from the base of its last
// answer, a fresh section read, or a base several keystrokes old. Every answer is checked
// against a model of the agent's words (test/helpers/targeted-agent.ts); at the end the document
// must hold every keystroke in its paragraph, every landed edit where it was named and nothing
// else, the block ids of untouched blocks, and read over REST as the provider's Y.Doc does.
// Sizes: ~1 KB (computed in the event loop) and ~300 KB (past the 256 KB bound: kept warm in the
// worker). 1 MB is too slow for CI on two loaded cores: TARGETED_MB=1 adds it, to run locally.
// TARGETED_SEED=n replays a seed (the interleaving with the typing timer still varies).
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { readContent } from '../../src/content/formats.js'
import { BACKENDS } from '../helpers/backends.js'
import { prng } from '../helpers/random-edits.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'
import {
  FILLER,
  labelOf,
  lineKey,
  linesOf,
  lower,
  Model,
  planDelete,
  planInsert,
  planReplace,
  type Expect,
  type Known,
  type Planned,
} from '../helpers/targeted-agent.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>
const SEED = Number(process.env.TARGETED_SEED ?? 46)
const KEYSTROKE_MS = 200 // about 5 characters a second
/** The person types at least this many letters, and on while the agent works. */
const KEYSTROKES = 30

interface Shape {
  name: string
  paragraphs: number
  /** the first of the eight paragraphs the person and the agent work in */
  region: number
  /** agent steps (a call of one to three edits, sometimes after a section read), paced over the typing */
  steps: number
  /**
   * the share of steps from a base several keystrokes old: past the server's cache of 16 views, so
   * on a large document each rebuilds that base from history (~1 s at 300 KB): fewer there
   */
  stale: number
}
// Sizes are of the encoded state, which the 256 KB bound is on (the Markdown is ~75% of it).
const SHAPES: Shape[] = [
  { name: '1 KB, computed in the event loop', paragraphs: 8, region: 0, steps: 100, stale: 0.3 },
  { name: '300 KB, kept warm in the worker', paragraphs: 1750, region: 876, steps: 60, stale: 0.15 },
  ...(process.env.TARGETED_MB
    ? [{ name: '1 MB, kept warm in the worker', paragraphs: 5900, region: 2951, steps: 60, stale: 0.15 }]
    : []),
]
const HEADING_EVERY = 25
/** Offsets in the region: where the person types (before word slot `at`), what the agent edits. */
const PERSON = [
  { offset: 1, at: 3 },
  { offset: 4, at: 5 },
  { offset: 6, at: 0 },
]
const AGENT_EDITS = [1, 2, 4, 5] // two of the person's paragraphs and two next to them; 0, 3, 6, 7 untouched

describe.each(BACKENDS)('targeted edits beside a person typing, on $name', (b) => {
  it.each(SHAPES)(
    'lose no keystroke, land where named or answer 409, keep untouched block ids ($name)',
    async (shape) => {
      h = await startTandem(await b.overrides(), { api: false })
      const doc = `conc-${shape.paragraphs}`
      const token = await h.token('acme', doc)
      const call = async (method: 'GET' | 'PATCH', query: string, body?: unknown) => {
        const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${token}${query ? '&' + query : ''}`, {
          method,
          ...(body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        })
        return { status: res.status, body: (await res.json()) as Json }
      }
      const readWhole = async () => (await call('GET', 'format=markdown')).body as { content: string; base: string }
      /** Every block's id at `base`, by label (or heading), from outlines of 200-line windows. */
      const blockIds = async (base: string, markdown: string) => {
        const lines = markdown.split('\n')
        const out = new Map<string, string>()
        for (let a = 1; a < lines.length; a += 200) {
          const r = await call(
            'GET',
            `view=outline&lines=${a}-${Math.min(lines.length - 1, a + 199)}&base=${encodeURIComponent(base)}`,
          )
          expect(r.status).toBe(200)
          for (const e of r.body.entries) out.set(lineKey(lines[e.line - 1]!), e.id)
        }
        return out
      }

      const model = new Model(shape.paragraphs, HEADING_EVERY)
      expect((await call('PATCH', '', { format: 'markdown', content: model.markdown })).status).toBe(200)
      const seeded = await readWhole()
      const initialIds = await blockIds(seeded.base, seeded.content)
      const ids = new Map(initialIds) // label -> id, learned for the agent's inserts
      for (const bl of model.blocks) if (!('heading' in bl)) bl.id = ids.get(bl.label)!
      const region = Array.from({ length: 8 }, (_, k) => labelOf(shape.region + k))

      // The person: the stock provider, a cursor per paragraph that follows their own last letter.
      const ann = new Y.Doc()
      const provider = h.provider('acme', doc, token, ann)
      await synced(provider)
      if (shape.paragraphs > 1000) expect(Y.encodeStateAsUpdate(ann).length).toBeGreaterThan(280 * 1024)
      else expect(Y.encodeStateAsUpdate(ann).length).toBeLessThan(2 * 1024)
      const texts = new Map<string, Y.XmlText>()
      ann.getXmlFragment('default').forEach((el) => {
        const t = el instanceof Y.XmlElement ? el.get(0) : null
        if (t instanceof Y.XmlText && region.includes(lineKey(t.toString()))) texts.set(lineKey(t.toString()), t)
      })
      const personRand = prng(SEED * 2 + 1)
      const letter = () => String.fromCharCode(65 + Math.floor(personRand() * 26))
      const people = PERSON.map(({ offset, at }) => {
        const label = region[offset]!
        const text = texts.get(label)!
        const index =
          text
            .toString()
            .split(' ')
            .slice(0, at + 1)
            .join(' ').length + 1
        const first = letter()
        text.insert(index, first)
        return { label, text, typed: first, rel: Y.createRelativePositionFromTypeIndex(text, index + 1, -1) }
      })
      let keys = people.length
      const typedIn = (label: string) => people.find((p) => p.label === label)?.typed.length ?? 0
      await eventually(async () => {
        const now = linesOf((await readWhole()).content)
        for (const p of people) expect(now.get(p.label)!.replace(/[^A-Z]/g, '')).toBe(p.typed)
      })

      let current = people[0]!
      let agentDone = false
      let typingError: unknown = null
      const typing = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          try {
            if ((agentDone && keys >= KEYSTROKES) || typingError) return (clearInterval(timer), resolve())
            if (personRand() < 0.25) current = people[Math.floor(personRand() * people.length)]!
            const at = Y.createAbsolutePositionFromRelativePosition(current.rel, ann)!
            const ch = letter()
            current.text.insert(at.index, ch)
            current.typed += ch
            current.rel = Y.createRelativePositionFromTypeIndex(current.text, at.index + 1, -1)
            keys++
          } catch (err) {
            typingError = err
          }
        }, KEYSTROKE_MS)
      })

      // The agent.
      const rand = prng(SEED)
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
      // the agent's own paragraphs stay targets after it deleted them: a stale base still shows them
      const isTarget = (label: string) =>
        AGENT_EDITS.some((k) => region[k] === label) || (ids.has(label) && !initialIds.has(label))
      const alive = () =>
        model.blocks.flatMap((bl) =>
          'heading' in bl || !(bl.agents || AGENT_EDITS.some((k) => region[k] === bl.label)) ? [] : [bl.label],
        )
      const readSection = async (labels: string[]): Promise<Known> => {
        const r = await call('GET', `view=section&blocks=${labels.map((l) => ids.get(l)).join(',')}`)
        expect(r.status, JSON.stringify(r.body)).toBe(200)
        const lines = new Map<string, string>()
        for (const part of r.body.parts ?? [r.body]) {
          expect(model.mismatch(part.content), `seed ${SEED}: a section read disagrees with the model`).toBeNull()
          linesOf(part.content, lines)
        }
        return { base: r.body.base, keys, lines }
      }
      const touched = new Set<string>()
      const stats: Record<string, number> = {}
      const count = (k: string) => (stats[k] = (stats[k] ?? 0) + 1)
      let last = await readSection(alive())
      const history: Known[] = [last]
      const t0 = Date.now()
      const interval = (KEYSTROKES * KEYSTROKE_MS) / shape.steps

      try {
        for (let step = 0; step < shape.steps; step++) {
          const wait = t0 + step * interval - Date.now()
          if (wait > 0) await new Promise((r) => setTimeout(r, wait)) // paces the load, waits for no outcome
          const r = rand()
          const stale = history.filter(
            (k) => k.keys <= keys - 3 && k.keys >= keys - 15 && [...k.lines.keys()].some(isTarget),
          )
          let known = r < shape.stale && stale.length ? pick(stale) : last
          if ((r >= shape.stale && r < shape.stale + 0.2) || ![...known.lines.keys()].some(isTarget)) {
            const labels = alive().filter(() => rand() < 0.5)
            known = await readSection(labels.length ? labels : [pick(alive())])
            history.push(known)
          }
          const why = (res: { status: number; body: Json }, body: Json) =>
            `seed ${SEED}, step ${step}: ${JSON.stringify(body)} answered ${res.status} ${JSON.stringify(res.body).slice(0, 800)}`

          if (rand() < 0.06) {
            // deliberate refusals: text in every paragraph, text in none
            const several = rand() < 0.5
            const body = {
              base: known.base,
              edits: [
                several ? { old_text: FILLER, new_text: 'lorem' } : { old_text: model.absentWord(), new_text: 'lorem' },
              ],
            }
            const res = await call('PATCH', '', body)
            expect({ status: res.status, code: res.body.code }, why(res, body)).toEqual({
              status: 409,
              code: several ? 'several_matches' : 'no_match',
            })
            count(several ? 'several_matches' : 'no_match')
            continue
          }

          const names = [...known.lines.keys()]
            .filter(isTarget)
            .sort(() => rand() - 0.5)
            .slice(0, 1 + Math.floor(rand() * 3))
          const agentParas = model.blocks.filter((bl) => !('heading' in bl) && bl.agents).length
          const plans: Planned[] = []
          for (const label of names) {
            const own = !initialIds.has(label)
            const x = rand()
            const mayInsert = agentParas < 6 && !plans.some((p) => p.inserts)
            let plan: Planned | null = null
            if (own && x > 0.6) plan = planDelete(model, known, label, ids.get(label)!)
            else if (mayInsert && x > (own ? 0.4 : 0.75)) plan = planInsert(model, label, ids.get(label)!)
            plan ??= planReplace(model, known, label, rand)
            if (plan) plans.push(plan)
          }
          if (!plans.length) continue
          const body = { base: known.base, edits: plans.map((p) => p.edit) }
          const res = await call('PATCH', '', body)
          // judged when the answer is in: a keystroke typed inside a named span meanwhile makes either answer right
          const raced = (p: Planned) => p.racesTyping !== undefined && typedIn(p.label) > p.racesTyping
          const expected: Expect = plans.some((p) => p.expect === 'refuse')
            ? 'refuse'
            : plans.some(raced)
              ? 'either'
              : 'land'
          expect([200, 409], why(res, body)).toContain(res.status)
          count(`${expected}->${res.status}${known === last ? '' : ' (older base)'}`)
          if (res.status === 409) {
            expect(res.body.code, why(res, body)).toBe('changed_since_base')
            // Known and allowed: edits of several blocks are carried by one character diff of their
            // run, which can align an unchanged word with text inserted between them since the
            // base and refuse it. One block's edit that nothing changed must land.
            if (expected === 'land' && new Set(plans.map((p) => p.label)).size > 1)
              count('refused though unchanged (several blocks)')
            else
              expect(expected, `${why(res, body)}: refused, but nothing it names changed since its base`).not.toBe(
                'land',
              )
            continue
          }
          expect(expected, `${why(res, body)}: landed, but what it names changed since its base`).not.toBe('refuse')
          for (const p of plans) p.apply(model)
          for (const c of res.body.changes)
            expect(
              model.mismatch(c.content),
              `${why(res, body)}: the answer's region is not what the edits make`,
            ).toBeNull()
          const fresh = res.body.changes
            .flatMap((c: Json) => c.blocks)
            .filter((id: string) => ![...ids.values()].includes(id))
          const inserted = plans.find((p) => p.inserts)?.inserts
          expect(fresh, `${why(res, body)}: new block ids`).toHaveLength(inserted ? 1 : 0)
          if (inserted) ids.set(inserted.label, (inserted.id = fresh[0]))
          for (const p of plans) touched.add(p.label)
          last = { base: res.body.base, keys, lines: linesOf(res.body.changes.map((c: Json) => c.content).join('\n')) }
          history.push(last)
        }
      } catch (err) {
        typingError ??= err // stops the typing too
        throw err
      } finally {
        agentDone = true
        await typing
      }
      expect(typingError).toBeNull()
      if (process.env.TARGETED_LOG) console.info(`${b.name} ${shape.name}: seed ${SEED}, ${Date.now() - t0} ms`, stats)
      expect(
        Object.entries(stats)
          .filter(([k]) => k.endsWith('200'))
          .reduce((n, [, v]) => n + v, 0),
        'edits that landed',
      ).toBeGreaterThan(shape.steps / 3)

      // Converged: the server and the provider read the same, and it is the model with the person's letters.
      let final = { content: '', base: '' }
      await eventually(async () => {
        final = await readWhole()
        expect(final.content).toBe(readContent(Y.encodeStateAsUpdate(ann), 'markdown', null).content)
      }, 30_000)
      expect(
        final.content
          .split('\n')
          .map((l) => (l.startsWith('para') ? lower(l) : l))
          .join('\n'),
        `seed ${SEED}`,
      ).toBe(model.markdown)

      // No keystroke lost: every letter typed is there, in order, in its paragraph, as the item typed.
      const lines = linesOf(final.content)
      for (const p of people)
        expect(lines.get(p.label)!.replace(/[^A-Z]/g, ''), `seed ${SEED}: ${p.label}`).toBe(p.typed)
      for (const s of ann.store.clients.get(ann.clientID)!)
        expect(s instanceof Y.Item && !s.deleted, `seed ${SEED}: a keystroke's item was deleted`).toBe(true)
      for (const p of people) {
        let own = ''
        for (let n = p.text._start; n !== null; n = n.right)
          if (n.id.client === ann.clientID && !n.deleted) own += (n.content as Y.ContentString).str
        expect(own, `seed ${SEED}: ${p.label}'s items`).toBe(p.typed)
      }

      // Untouched blocks keep their ids; so do the ones edited in place (words only, never replaced).
      const finalIds = await blockIds(final.base, final.content)
      for (const [key, id] of initialIds)
        expect({ key, id: finalIds.get(key), touched: touched.has(key) }, `seed ${SEED}`).toEqual({
          key,
          id,
          touched: touched.has(key),
        })
      for (const bl of model.blocks) if (!('heading' in bl) && bl.agents) expect(finalIds.get(bl.label)).toBe(bl.id)
      expect(region.filter((l) => !touched.has(l))).toEqual(expect.arrayContaining([0, 3, 6, 7].map((k) => region[k])))
    },
    120_000,
  )
})
