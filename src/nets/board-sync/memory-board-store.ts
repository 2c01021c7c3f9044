/**
 * MemoryBoardStore: the in-process twin of MongoBoardStore, for a worker without Mongo and for tests.
 * Not shared between processes and not persistent.
 */
import type { Card, IssueFields } from './card.js'
import {
  type BoardStore,
  type CardMove,
  checkBoardLabels,
  checkDate,
  checkMove,
  repoKey,
} from './board-store.js'

const COMPONENT = 'MemoryBoardStore'

/** A BoardStore held in memory; see the BoardStore contract. */
export class MemoryBoardStore implements BoardStore {
  readonly #cards = new Map<string, Card>()
  readonly #watermarks = new Map<string, Date>()

  async getCard(id: string): Promise<Card | undefined> {
    const card = this.#cards.get(id)
    return card === undefined ? undefined : structuredClone(card)
  }

  async listCards(repo?: string): Promise<Card[]> {
    return [...this.#cards.values()]
      .filter((c) => repo === undefined || repoKey(c.repo) === repoKey(repo))
      .sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : a.number - b.number))
      .map((c) => structuredClone(c))
  }

  async insertCard(card: Card): Promise<boolean> {
    if (this.#cards.has(card.id)) return false
    this.#cards.set(card.id, structuredClone(card))
    return true
  }

  async refreshCard(id: string, fields: IssueFields): Promise<boolean> {
    const updatedAt = checkDate(COMPONENT, 'refreshCard', 'updatedAt', fields.updatedAt)
    const card = this.#cards.get(id)
    if (card === undefined || card.updatedAt > updatedAt) return false
    Object.assign(card, structuredClone({ ...fields, updatedAt }))
    return true
  }

  async moveCard(id: string, move: CardMove): Promise<boolean> {
    const { from, to, by, now } = checkMove(COMPONENT, id, move)
    const card = this.#cards.get(id)
    if (card === undefined || card.column !== from || (by === 'sync' && card.columnSetBy !== 'sync'))
      return false
    card.column = to
    card.columnSetBy = by
    card.columnChangedAt = now
    return true
  }

  async setBoardLabels(id: string, labels: string[]): Promise<boolean> {
    const valid = checkBoardLabels(COMPONENT, id, labels)
    const card = this.#cards.get(id)
    if (card === undefined) return false
    card.boardLabels = valid
    return true
  }

  async getWatermark(repo: string): Promise<Date | undefined> {
    const at = this.#watermarks.get(repoKey(repo))
    return at === undefined ? undefined : new Date(at)
  }

  async setWatermark(repo: string, at: Date): Promise<void> {
    const next = checkDate(COMPONENT, 'setWatermark', 'at', at)
    const current = this.#watermarks.get(repoKey(repo))
    if (current === undefined || current < next) this.#watermarks.set(repoKey(repo), next)
  }
}
