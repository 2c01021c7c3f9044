import { describe, expect, it } from 'vitest'
import { MongoBoardStore } from '../../../src/nets/board-sync/mongo-board-store.js'
import { newCard } from '../../../src/nets/board-sync/card.js'
import { useTestDatabase } from '../../support/mongo.js'
import { boardStoreConformance } from './board-store-conformance.js'

const mongo = await useTestDatabase('board_store')
let n = 0

boardStoreConformance(
  'MongoBoardStore',
  async (options) => {
    n++
    const store = new MongoBoardStore(mongo.db, { cards: `cards_${n}`, syncState: `state_${n}`, ...options })
    await store.ensureIndexes()
    return store
  },
  mongo.isFerretDb ? { raceMayElectTwo: 'FerretDB applies an update as read-then-write' } : {},
)

describe('MongoBoardStore on the run’s real server', () => {
  it('uses board_cards and board_sync_state by default, in the documented shape', async () => {
    const store = new MongoBoardStore(mongo.db)
    await store.ensureIndexes()
    const now = new Date('2026-09-30T15:00:00.000Z')
    const card = newCard(
      'acme/widgets',
      3,
      {
        title: 't',
        state: 'open',
        labels: [],
        author: 'mona',
        authorAssociation: 'NONE',
        url: 'u',
        updatedAt: now,
      },
      now,
    )
    await store.insertCard(card)
    await store.setWatermark('Acme/Widgets', now)
    const { id, ...rest } = card
    expect(await mongo.db.collection('board_cards').find({}).toArray()).toEqual([{ _id: id, ...rest }])
    expect(await mongo.db.collection('board_sync_state').find({}).toArray()).toEqual([
      { _id: 'acme/widgets', watermark: now },
    ])
    const indexes = await mongo.db.collection('board_cards').indexes()
    expect(indexes.find((i) => i.name === 'repo_number')?.key).toEqual({ repo: 1, number: 1 })
  })

  it('wraps a driver failure in BOARD_STORE_FAILED naming the operation, with the cause', async () => {
    const store = new MongoBoardStore(mongo.client.db('y'.repeat(70)))
    const error = await store.getWatermark('acme/widgets').catch((e: unknown) => e)
    expect(error).toMatchObject({
      name: 'BoardStoreError',
      code: 'BOARD_STORE_FAILED',
      operation: 'getWatermark',
    })
    expect((error as Error).cause).toBeInstanceOf(Error)
  })
})
