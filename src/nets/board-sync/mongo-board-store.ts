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
 * watermark only moves forward. `listCards` reads at most MAX_LISTED_CARDS (board-store.ts).
 */
import type { Collection, Db, Document } from 'mongodb'
import { isDuplicateKeyError } from '../../store-call/duplicate-key.js'
import { type CallBounds, LONG_CALL_TIMEOUT_MS, StoreCollection } from '../../store-call/store-call.js'
import type { Card, IssueFields } from './card.js'
import {
  type BoardCallOptions,
  type BoardStore,
  type CardMove,
  checkBoardLabels,
  checkCardsRead,
  checkDate,
  checkMove,
  repoKey,
} from './board-store.js'
import { BoardStoreError } from './board-store-error.js'

const COMPONENT = 'MongoBoardStore'

type CardDocument = Omit<Card, 'id'> & { _id: string }
interface SyncStateDocument {
  _id: string
  watermark: Date
}

export interface MongoBoardStoreOptions {
  /** Collection names; `board_cards` and `board_sync_state` by default. */
  cards?: string
  syncState?: string
  /** The longest a call may take on the server (`maxTimeMS`, and the majority's `wtimeoutMS`), in ms; 5000 by default. */
  callTimeoutMs?: number
  /** The most cards one `listCards` answers; MAX_LISTED_CARDS by default (smaller in tests). */
  cardsRead?: number
}

/** A BoardStore backed by MongoDB; see the BoardStore contract. */
export class MongoBoardStore implements BoardStore {
  readonly #cards: StoreCollection<CardDocument>
  readonly #state: StoreCollection<SyncStateDocument>
  readonly #cardsRead: number

  constructor(db: Db, options: MongoBoardStoreOptions = {}) {
    this.#cardsRead = checkCardsRead(COMPONENT, options.cardsRead)
    const how = {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    }
    this.#cards = new StoreCollection<CardDocument>(db, options.cards ?? 'board_cards', how)
    this.#state = new StoreCollection<SyncStateDocument>(db, options.syncState ?? 'board_sync_state', how)
  }

  /** Creates the `repo_number` index (idempotent); the net's setup calls it once per process. */
  async ensureIndexes(options?: BoardCallOptions): Promise<void> {
    await this.#call(
      this.#cards,
      'ensureIndexes',
      undefined,
      options,
      (cards, bounds) => cards.createIndex({ repo: 1, number: 1 }, { name: 'repo_number', ...bounds.read }),
      LONG_CALL_TIMEOUT_MS,
    )
  }

  async getCard(id: string, options?: BoardCallOptions): Promise<Card | undefined> {
    const doc = await this.#call(this.#cards, 'getCard', id, options, (cards, bounds) =>
      cards.findOne({ _id: id }, bounds.read),
    )
    return doc === null ? undefined : toCard(doc)
  }

  async listCards(repo?: string, options?: BoardCallOptions): Promise<Card[]> {
    const filter = repo === undefined ? {} : { repo: { $regex: `^${escapeRegex(repo)}$`, $options: 'i' } }
    const docs = await this.#call(this.#cards, 'listCards', repo, options, (cards, bounds) =>
      cards.find(filter, bounds.find).sort({ repo: 1, number: 1 }).limit(this.#cardsRead).toArray(),
    )
    return docs.map(toCard)
  }

  async insertCard(card: Card, options?: BoardCallOptions): Promise<boolean> {
    const { id, ...rest } = card
    return this.#call(this.#cards, 'insertCard', id, options, async (cards, bounds) => {
      try {
        await cards.insertOne({ _id: id, ...rest }, bounds.write)
        return true
      } catch (error) {
        if (isDuplicateKeyError(error)) return false
        throw error
      }
    })
  }

  async refreshCard(id: string, fields: IssueFields, options?: BoardCallOptions): Promise<boolean> {
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
    const result = await this.#call(this.#cards, 'refreshCard', id, options, (cards, bounds) =>
      cards.updateOne({ _id: id, updatedAt: { $lte: updatedAt } }, { $set: set }, bounds.write),
    )
    return result.matchedCount > 0
  }

  async moveCard(id: string, move: CardMove, options?: BoardCallOptions): Promise<boolean> {
    const { from, to, by, now } = checkMove(COMPONENT, id, move)
    const filter =
      by === 'sync' ? { _id: id, column: from, columnSetBy: 'sync' as const } : { _id: id, column: from }
    const moved = { $set: { column: to, columnSetBy: by, columnChangedAt: now } }
    const result = await this.#call(this.#cards, 'moveCard', id, options, (cards, bounds) =>
      cards.updateOne(filter, moved, bounds.write),
    )
    return result.matchedCount > 0
  }

  async setBoardLabels(id: string, labels: string[], options?: BoardCallOptions): Promise<boolean> {
    const valid = checkBoardLabels(COMPONENT, id, labels)
    const result = await this.#call(this.#cards, 'setBoardLabels', id, options, (cards, bounds) =>
      cards.updateOne({ _id: id }, { $set: { boardLabels: valid } }, bounds.write),
    )
    return result.matchedCount > 0
  }

  async getWatermark(repo: string, options?: BoardCallOptions): Promise<Date | undefined> {
    const doc = await this.#call(this.#state, 'getWatermark', repo, options, (state, bounds) =>
      state.findOne({ _id: repoKey(repo) }, bounds.read),
    )
    return doc?.watermark
  }

  async setWatermark(repo: string, at: Date, options?: BoardCallOptions): Promise<void> {
    const watermark = checkDate(COMPONENT, 'setWatermark', 'at', at)
    await this.#call(this.#state, 'setWatermark', repo, options, (state, bounds) =>
      state.updateOne({ _id: repoKey(repo) }, { $max: { watermark } }, { upsert: true, ...bounds.write }),
    )
  }

  /** One bounded call (store-call.ts): failures are BOARD_STORE_FAILED, aborts BOARD_STORE_ABORTED. */
  #call<D extends Document, T>(
    collection: StoreCollection<D>,
    operation: string,
    subject: string | undefined,
    options: BoardCallOptions | undefined,
    op: (collection: Collection<D>, bounds: CallBounds) => Promise<T>,
    timeoutMs?: number,
  ): Promise<T> {
    const context = { component: COMPONENT, operation, subject }
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new BoardStoreError(kind === 'failed' ? 'BOARD_STORE_FAILED' : 'BOARD_STORE_ABORTED', context, detail, {
        cause,
      })
    return collection.call({ signal: options?.signal, timeoutMs, error }, op)
  }
}

function toCard(doc: CardDocument): Card {
  const { _id, ...rest } = doc
  return { id: _id, ...rest }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
