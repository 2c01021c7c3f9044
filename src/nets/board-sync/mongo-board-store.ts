/**
 * MongoBoardStore: the board in two MongoDB collections.
 *
 * `board_cards`, one document per card (`_id` = the card's UUIDv5 id):
 *   repo, number, title, state, labels (forge-owned), author, authorAssociation, url, updatedAt (the
 *   issue's), column, columnSetBy (sync | person), columnChangedAt, boardLabels (board-owned), createdAt.
 *   Index `repo_number` {repo: 1, number: 1}.
 * `board_sync_state`, one document per repository: `_id` = lowercase owner/name, `watermark` (date).
 *
 * Every write is conditional, so replicas racing never undo each other: insert collides on `_id`, a
 * refresh only lands on a card not newer than it, a move is a compare-and-set on the column, and the
 * watermark only moves forward.
 */
import type { Collection, Db, WriteConcernSettings } from 'mongodb'
import { isDuplicateKeyError } from '../../store-call/duplicate-key.js'
import type { Card, IssueFields } from './card.js'
import {
  type BoardStore,
  type CardMove,
  checkBoardLabels,
  checkDate,
  checkMove,
  repoKey,
} from './board-store.js'
import { BoardStoreError } from './board-store-error.js'

const COMPONENT = 'MongoBoardStore'
const MAJORITY: WriteConcernSettings = { w: 'majority' }

type CardDocument = Omit<Card, 'id'> & { _id: string }
interface SyncStateDocument {
  _id: string
  watermark: Date
}

export interface MongoBoardStoreOptions {
  /** Collection names; `board_cards` and `board_sync_state` by default. */
  cards?: string
  syncState?: string
}

/** A BoardStore backed by MongoDB; see the BoardStore contract. */
export class MongoBoardStore implements BoardStore {
  readonly #cards: Collection<CardDocument>
  readonly #state: Collection<SyncStateDocument>

  constructor(db: Db, options: MongoBoardStoreOptions = {}) {
    if (!db || typeof db.collection !== 'function') {
      throw new TypeError('MongoBoardStore: expected a mongodb Db as its first argument')
    }
    this.#cards = db.collection<CardDocument>(options.cards ?? 'board_cards', { writeConcern: MAJORITY })
    this.#state = db.collection<SyncStateDocument>(options.syncState ?? 'board_sync_state', {
      writeConcern: MAJORITY,
    })
  }

  /** Creates the `repo_number` index (idempotent); the net's setup calls it once per process. */
  async ensureIndexes(): Promise<void> {
    await this.#call('ensureIndexes', undefined, () =>
      this.#cards.createIndex({ repo: 1, number: 1 }, { name: 'repo_number' }),
    )
  }

  async getCard(id: string): Promise<Card | undefined> {
    const doc = await this.#call('getCard', id, () => this.#cards.findOne({ _id: id }))
    return doc === null ? undefined : toCard(doc)
  }

  async listCards(repo?: string): Promise<Card[]> {
    const filter = repo === undefined ? {} : { repo: { $regex: `^${escapeRegex(repo)}$`, $options: 'i' } }
    const docs = await this.#call('listCards', repo, () =>
      this.#cards.find(filter).sort({ repo: 1, number: 1 }).toArray(),
    )
    return docs.map(toCard)
  }

  async insertCard(card: Card): Promise<boolean> {
    const { id, ...rest } = card
    return this.#call('insertCard', id, async () => {
      try {
        await this.#cards.insertOne({ _id: id, ...rest })
        return true
      } catch (error) {
        if (isDuplicateKeyError(error)) return false
        throw error
      }
    })
  }

  async refreshCard(id: string, fields: IssueFields): Promise<boolean> {
    const updatedAt = checkDate(COMPONENT, 'refreshCard', 'updatedAt', fields.updatedAt)
    const set = {
      title: fields.title,
      state: fields.state,
      labels: [...fields.labels],
      author: fields.author,
      authorAssociation: fields.authorAssociation,
      url: fields.url,
      updatedAt,
    }
    const result = await this.#call('refreshCard', id, () =>
      this.#cards.updateOne({ _id: id, updatedAt: { $lte: updatedAt } }, { $set: set }),
    )
    return result.matchedCount > 0
  }

  async moveCard(id: string, move: CardMove): Promise<boolean> {
    const { from, to, by, now } = checkMove(COMPONENT, id, move)
    const filter =
      by === 'sync' ? { _id: id, column: from, columnSetBy: 'sync' as const } : { _id: id, column: from }
    const result = await this.#call('moveCard', id, () =>
      this.#cards.updateOne(filter, { $set: { column: to, columnSetBy: by, columnChangedAt: now } }),
    )
    return result.matchedCount > 0
  }

  async setBoardLabels(id: string, labels: string[]): Promise<boolean> {
    const valid = checkBoardLabels(COMPONENT, id, labels)
    const result = await this.#call('setBoardLabels', id, () =>
      this.#cards.updateOne({ _id: id }, { $set: { boardLabels: valid } }),
    )
    return result.matchedCount > 0
  }

  async getWatermark(repo: string): Promise<Date | undefined> {
    const doc = await this.#call('getWatermark', repo, () => this.#state.findOne({ _id: repoKey(repo) }))
    return doc?.watermark
  }

  async setWatermark(repo: string, at: Date): Promise<void> {
    const watermark = checkDate(COMPONENT, 'setWatermark', 'at', at)
    await this.#call('setWatermark', repo, () =>
      this.#state.updateOne({ _id: repoKey(repo) }, { $max: { watermark } }, { upsert: true }),
    )
  }

  async #call<T>(operation: string, subject: string | undefined, op: () => Promise<T>): Promise<T> {
    try {
      return await op()
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error)
      throw new BoardStoreError(
        'BOARD_STORE_FAILED',
        { component: COMPONENT, operation, subject },
        `the store did not answer: ${detail}`,
        { cause: error },
      )
    }
  }
}

function toCard(doc: CardDocument): Card {
  const { _id, ...rest } = doc
  return { id: _id, ...rest }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
