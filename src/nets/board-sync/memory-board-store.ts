/**
 * MemoryBoardStore: the in-process twin of MongoBoardStore, for a worker without Mongo and for tests.
 * Not shared between processes and not persistent.
 */
import type { Card, IssueFields } from './card.js'
import {
  type BoardCallOptions,
  type BoardStore,
  type CardMove,
  checkBoardCallNotAborted,
  checkBoardLabels,
  checkCardsRead,
  checkDate,
  checkMove,
  repoKey,
} from './board-store.js'

const COMPONENT = 'MemoryBoardStore'

/** A BoardStore held in memory; see the BoardStore contract. */
export class MemoryBoardStore implements BoardStore {
  readonly #cards = new Map<string, Card>()
  readonly #watermarks = new Map<string, Date>()
  readonly #cardsRead: number

  /** `cardsRead`: the most cards one `listCards` answers (MAX_LISTED_CARDS; smaller in tests). */
  constructor(options: { cardsRead?: number } = {}) {
    this.#cardsRead = checkCardsRead(COMPONENT, options.cardsRead)
  }

  async getCard(id: string, options?: BoardCallOptions): Promise<Card | undefined> {
    checkBoardCallNotAborted(COMPONENT, 'getCard', id, options)
    const card = this.#cards.get(id)
    return card === undefined ? undefined : structuredClone(card)
  }

  async listCards(repo?: string, options?: BoardCallOptions): Promise<Card[]> {
    checkBoardCallNotAborted(COMPONENT, 'listCards', repo, options)
    return [...this.#cards.values()]
      .filter((c) => repo === undefined || repoKey(c.repo) === repoKey(repo))
      .sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : a.number - b.number))
      .slice(0, this.#cardsRead)
      .map((c) => structuredClone(c))
  }

  async insertCard(card: Card, options?: BoardCallOptions): Promise<boolean> {
    checkBoardCallNotAborted(COMPONENT, 'insertCard', card.id, options)
    if (this.#cards.has(card.id)) return false
    this.#cards.set(card.id, structuredClone(card))
    return true
  }

  async refreshCard(id: string, fields: IssueFields, options?: BoardCallOptions): Promise<boolean> {
    checkBoardCallNotAborted(COMPONENT, 'refreshCard', id, options)
    const updatedAt = checkDate(COMPONENT, 'refreshCard', 'updatedAt', fields.updatedAt)
    const card = this.#cards.get(id)
    if (card === undefined || card.updatedAt > updatedAt) return false
    Object.assign(card, structuredClone({ ...fields, updatedAt }))
    return true
  }

  async moveCard(id: string, move: CardMove, options?: BoardCallOptions): Promise<boolean> {
    checkBoardCallNotAborted(COMPONENT, 'moveCard', id, options)
    const { from, to, by, now } = checkMove(COMPONENT, id, move)
    const card = this.#cards.get(id)
    if (card === undefined || card.column !== from || (by === 'sync' && card.columnSetBy !== 'sync'))
      return false
    card.column = to
    card.columnSetBy = by
    card.columnChangedAt = now
    return true
  }

  async setBoardLabels(id: string, labels: string[], options?: BoardCallOptions): Promise<boolean> {
    checkBoardCallNotAborted(COMPONENT, 'setBoardLabels', id, options)
    const valid = checkBoardLabels(COMPONENT, id, labels)
    const card = this.#cards.get(id)
    if (card === undefined) return false
    card.boardLabels = valid
    return true
  }

  async getWatermark(repo: string, options?: BoardCallOptions): Promise<Date | undefined> {
    checkBoardCallNotAborted(COMPONENT, 'getWatermark', repo, options)
    const at = this.#watermarks.get(repoKey(repo))
    return at === undefined ? undefined : new Date(at)
  }

  async setWatermark(repo: string, at: Date, options?: BoardCallOptions): Promise<void> {
    checkBoardCallNotAborted(COMPONENT, 'setWatermark', repo, options)
    const next = checkDate(COMPONENT, 'setWatermark', 'at', at)
    const current = this.#watermarks.get(repoKey(repo))
    if (current === undefined || current < next) this.#watermarks.set(repoKey(repo), next)
  }
}
