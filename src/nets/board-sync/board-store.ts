/**
 * The board store contract: cards and per-repository watermarks. Two twins answer identical calls
 * identically — `MemoryBoardStore` and `MongoBoardStore` (`board_cards` + `board_sync_state`) — checked by
 * one conformance suite. Every instant is an argument; the store never reads a clock.
 *
 * Not a claim: two syncs racing on one card collide on its UUIDv5 id (one insert wins) and on the column
 * compare-and-set; refreshes are idempotent and never go back to an older `updatedAt`.
 */
import { checkReadCap } from '../../store-call/read-cap.js'
import type { StoreCallOptions } from '../../store-call/store-call.js'
import type { BoardColumn, Card, ColumnSetBy, IssueFields } from './card.js'
import { BOARD_COLUMNS } from './card.js'
import { BoardStoreError } from './board-store-error.js'

/**
 * Options every board-store call accepts: `signal` bounds it (an aborted one rejects with
 * `BOARD_STORE_ABORTED` and changes nothing; one aborted in flight rejects at once, its write may land).
 */
export type BoardCallOptions = StoreCallOptions

/** A column move: compare-and-set from `from` to `to`. */
export interface CardMove {
  from: BoardColumn
  to: BoardColumn
  /** `sync` moves only a card whose column the sync set; `person` moves any and marks it theirs. */
  by: ColumnSetBy
  now: Date
}

/**
 * The most cards one `listCards` answers: far more than the open issues of the repositories one board
 * follows, so only a collection another program filled meets it, and that costs one bounded read.
 */
export const MAX_LISTED_CARDS = 10_000

/** A twin's `cardsRead` option: the cap on one `listCards` (MAX_LISTED_CARDS; smaller in tests), checked. */
export function checkCardsRead(component: string, cardsRead: unknown): number {
  return checkReadCap(component, 'cardsRead', cardsRead, MAX_LISTED_CARDS)
}

export interface BoardStore {
  /** The card with `id`, or undefined. */
  getCard(id: string, options?: BoardCallOptions): Promise<Card | undefined>
  /**
   * Every card of `repo` (all cards when absent), by repository then number — at most MAX_LISTED_CARDS,
   * the first in that order: a board bigger than that is cut (the sync itself never lists cards).
   */
  listCards(repo?: string, options?: BoardCallOptions): Promise<Card[]>
  /** Inserts `card` when no card has its id; resolves false (changing nothing) when one does. */
  insertCard(card: Card, options?: BoardCallOptions): Promise<boolean>
  /**
   * Writes the sync-owned `fields` of card `id` when its stored `updatedAt` is not newer than
   * `fields.updatedAt` (a late, older read never wins); never touches the column or `boardLabels`.
   * Resolves true when the card was written.
   */
  refreshCard(id: string, fields: IssueFields, options?: BoardCallOptions): Promise<boolean>
  /** Compare-and-set on the column (see CardMove); resolves true when this call moved the card. */
  moveCard(id: string, move: CardMove, options?: BoardCallOptions): Promise<boolean>
  /** Sets the board-owned labels (each must start with `board:`); resolves false when there is no card. */
  setBoardLabels(id: string, labels: string[], options?: BoardCallOptions): Promise<boolean>
  /** The repository's watermark: issues updated before it were synced. Undefined before the first sync. */
  getWatermark(repo: string, options?: BoardCallOptions): Promise<Date | undefined>
  /** Moves the repository's watermark to `at`, never backward. */
  setWatermark(repo: string, at: Date, options?: BoardCallOptions): Promise<void>
}

/** Checks a Date argument; throws BoardStoreError naming it. */
export function checkDate(component: string, operation: string, name: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new BoardStoreError(
      'BOARD_INVALID_ARGUMENT',
      { component, operation },
      `${name} must be a valid Date, got ${String(value)}`,
    )
  }
  return new Date(Math.trunc(value.getTime()))
}

/** Checks a card move; throws BoardStoreError naming the field. */
export function checkMove(component: string, id: string, move: CardMove): CardMove {
  const bad = (detail: string) =>
    new BoardStoreError('BOARD_INVALID_ARGUMENT', { component, operation: 'moveCard', subject: id }, detail)
  for (const key of ['from', 'to'] as const) {
    if (!BOARD_COLUMNS.includes(move?.[key]))
      throw bad(`${key} must be one of ${BOARD_COLUMNS.join(', ')}, got ${String(move?.[key])}`)
  }
  if (move.by !== 'sync' && move.by !== 'person')
    throw bad(`by must be sync or person, got ${String(move.by)}`)
  return { ...move, now: checkDate(component, 'moveCard', 'now', move.now) }
}

/** Checks board labels; throws BoardStoreError when one lacks the `board:` prefix. */
export function checkBoardLabels(component: string, id: string, labels: string[]): string[] {
  const bad = labels.filter((l) => typeof l !== 'string' || !l.startsWith('board:'))
  if (!Array.isArray(labels) || bad.length > 0) {
    throw new BoardStoreError(
      'BOARD_INVALID_ARGUMENT',
      { component, operation: 'setBoardLabels', subject: id },
      `board labels must each start with "board:", got ${JSON.stringify(bad.slice(0, 3))}`,
    )
  }
  return [...labels]
}

/** The watermark key of a repository: GitHub names are case-insensitive. */
export function repoKey(repo: string): string {
  return repo.toLowerCase()
}

/** Rejects a call whose signal is already aborted, before it reaches the store (BOARD_STORE_ABORTED). */
export function checkBoardCallNotAborted(
  component: string,
  operation: string,
  subject: string | undefined,
  options: BoardCallOptions | undefined,
): void {
  const signal = options?.signal
  if (!signal?.aborted) return
  throw new BoardStoreError(
    'BOARD_STORE_ABORTED',
    { component, operation, subject },
    'the call was aborted before it was sent',
    { cause: signal.reason },
  )
}
