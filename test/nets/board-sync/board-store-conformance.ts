/**
 * The one conformance suite every BoardStore runs: both twins must answer identical calls identically.
 */
import { describe, expect, it } from 'vitest'
import type { BoardStore } from '../../../src/nets/board-sync/board-store.js'
import { type IssueFields, newCard } from '../../../src/nets/board-sync/card.js'

export interface BoardStoreConformanceOptions {
  /** Why two compare-and-sets on one card may both match on this server (FerretDB); the race then checks the end state. */
  raceMayElectTwo?: string
}

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000)
const fields = (extra: Partial<IssueFields> = {}): IssueFields => ({
  title: 'It breaks',
  state: 'open',
  labels: ['bug'],
  author: 'mona',
  authorAssociation: 'MEMBER',
  url: 'https://github.example/acme/widgets/issues/7',
  updatedAt: at(0),
  ...extra,
})

export function boardStoreConformance(
  label: string,
  makeStore: (store?: { cardsRead?: number }) => Promise<BoardStore>,
  options: BoardStoreConformanceOptions = {},
): void {
  describe(`${label} board store conformance`, () => {
    it('inserts a card once; a second insert of the same id changes nothing', async () => {
      const store = await makeStore()
      const card = newCard('acme/widgets', 7, fields(), at(1))
      expect(await store.insertCard(card)).toBe(true)
      expect(await store.insertCard({ ...card, title: 'other' })).toBe(false)
      expect(await store.getCard(card.id)).toEqual(card)
      expect(await store.getCard('00000000-0000-5000-8000-000000000000')).toBeUndefined()
    })

    it('lists cards by repository (case-insensitive) then number', async () => {
      const store = await makeStore()
      for (const [repo, n] of [
        ['acme/widgets', 9],
        ['acme/gadgets', 1],
        ['acme/widgets', 2],
      ] as const) {
        await store.insertCard(newCard(repo, n, fields(), at(1)))
      }
      expect((await store.listCards('Acme/Widgets')).map((c) => c.number)).toEqual([2, 9])
      expect((await store.listCards()).map((c) => `${c.repo}#${c.number}`)).toEqual([
        'acme/gadgets#1',
        'acme/widgets#2',
        'acme/widgets#9',
      ])
    })

    // A collection another program filled costs one bounded read (MAX_LISTED_CARDS, 2 here).
    it('lists at most its cards-read cap, the first by repository then number', async () => {
      const store = await makeStore({ cardsRead: 2 })
      for (const [repo, n] of [
        ['acme/widgets', 9],
        ['acme/gadgets', 1],
        ['acme/widgets', 2],
        ['acme/widgets', 5],
      ] as const) {
        await store.insertCard(newCard(repo, n, fields(), at(1)))
      }
      expect((await store.listCards()).map((c) => `${c.repo}#${c.number}`)).toEqual([
        'acme/gadgets#1',
        'acme/widgets#2',
      ])
      expect((await store.listCards('acme/widgets')).map((c) => c.number)).toEqual([2, 5])
    })

    it('refreshes the sync-owned fields, never the column or board labels, and never from an older read', async () => {
      const store = await makeStore()
      const card = newCard('acme/widgets', 7, fields(), at(1))
      await store.insertCard(card)
      expect(
        await store.moveCard(card.id, { from: 'triage', to: 'needs-approval', by: 'person', now: at(2) }),
      ).toBe(true)
      expect(await store.setBoardLabels(card.id, ['board:p1'])).toBe(true)
      const newer = fields({
        title: 'It breaks badly',
        labels: ['bug', 'p0'],
        state: 'closed',
        updatedAt: at(5),
      })
      expect(await store.refreshCard(card.id, newer)).toBe(true)
      expect(
        await store.refreshCard(card.id, fields({ title: 'stale', updatedAt: at(4) })),
        'an older read won',
      ).toBe(false)
      expect(await store.getCard(card.id)).toEqual({
        ...card,
        ...newer,
        column: 'needs-approval',
        columnSetBy: 'person',
        columnChangedAt: at(2),
        boardLabels: ['board:p1'],
      })
      expect(await store.refreshCard('00000000-0000-5000-8000-000000000000', newer)).toBe(false)
    })

    it('moves a card by compare-and-set on its column; the sync never moves a column a person set', async () => {
      const store = await makeStore()
      const card = newCard('acme/widgets', 7, fields(), at(1))
      await store.insertCard(card)
      expect(
        await store.moveCard(card.id, { from: 'needs-approval', to: 'done', by: 'sync', now: at(2) }),
      ).toBe(false)
      expect(await store.moveCard(card.id, { from: 'triage', to: 'done', by: 'sync', now: at(2) })).toBe(true)
      expect(await store.getCard(card.id)).toMatchObject({
        column: 'done',
        columnSetBy: 'sync',
        columnChangedAt: at(2),
      })
      expect(await store.moveCard(card.id, { from: 'done', to: 'triage', by: 'person', now: at(3) })).toBe(
        true,
      )
      expect(
        await store.moveCard(card.id, { from: 'triage', to: 'done', by: 'sync', now: at(4) }),
        'moved a person’s column',
      ).toBe(false)
      expect(await store.getCard(card.id)).toMatchObject({
        column: 'triage',
        columnSetBy: 'person',
        columnChangedAt: at(3),
      })
    })

    it('leaves the card in done when two syncs close it at once', async () => {
      const store = await makeStore()
      const card = newCard('acme/widgets', 7, fields(), at(1))
      await store.insertCard(card)
      const move = { from: 'triage', to: 'done', by: 'sync', now: at(2) } as const
      const wins = await Promise.all([store.moveCard(card.id, move), store.moveCard(card.id, move)])
      expect(await store.getCard(card.id)).toMatchObject({ column: 'done', columnSetBy: 'sync' })
      if (options.raceMayElectTwo === undefined) expect(wins.filter(Boolean)).toHaveLength(1)
      else expect(wins.filter(Boolean).length).toBeGreaterThanOrEqual(1)
    })

    it('refuses bad arguments with BOARD_INVALID_ARGUMENT', async () => {
      const store = await makeStore()
      const card = newCard('acme/widgets', 7, fields(), at(1))
      await store.insertCard(card)
      await expect(store.setBoardLabels(card.id, ['p1'])).rejects.toMatchObject({
        name: 'BoardStoreError',
        code: 'BOARD_INVALID_ARGUMENT',
      })
      await expect(
        store.moveCard(card.id, { from: 'triage', to: 'backlog' as never, by: 'sync', now: at(2) }),
      ).rejects.toThrow(/to must be one of/)
      await expect(store.setWatermark('acme/widgets', new Date(Number.NaN))).rejects.toThrow(
        /at must be a valid Date/,
      )
    })

    it('keeps one watermark per repository (case-insensitive), never moving it backward', async () => {
      const store = await makeStore()
      expect(await store.getWatermark('acme/widgets')).toBeUndefined()
      await store.setWatermark('acme/widgets', at(10))
      await store.setWatermark('Acme/Widgets', at(5))
      await store.setWatermark('acme/gadgets', at(1))
      expect(await store.getWatermark('acme/widgets')).toEqual(at(10))
      expect(await store.getWatermark('acme/gadgets')).toEqual(at(1))
      await store.setWatermark('acme/widgets', at(11))
      expect(await store.getWatermark('ACME/widgets')).toEqual(at(11))
    })
  })
}
