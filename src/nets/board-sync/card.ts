/**
 * The board's card: one per forge issue, created and refreshed by the board issue sync, moved between
 * columns by the sync (new issues, closes) and by people. The sync owns the issue's fields (title, state,
 * labels, author, url, updatedAt); the board owns its own — a column a person set, and labels with the
 * `board:` prefix — and the sync never touches those.
 *
 * This module is the model, the card id and the column rules; not a store and not the sync.
 */
import { NAMESPACE_URL, uuidV5 } from './uuid-v5.js'

/** The columns the sync knows. */
export const BOARD_COLUMNS = ['triage', 'needs-approval', 'done'] as const
export type BoardColumn = (typeof BOARD_COLUMNS)[number]

/** Who put a card in its column: the sync may move only cards it placed itself. */
export type ColumnSetBy = 'sync' | 'person'

/** Labels with this prefix are the board's own, never the forge's. */
export const BOARD_LABEL_PREFIX = 'board:'

/** Author associations whose new issues go straight to triage; any other waits for approval. */
export const TRUSTED_ASSOCIATIONS: ReadonlySet<string> = new Set(['OWNER', 'MEMBER', 'COLLABORATOR'])

/** The fields the sync owns, read from a forge issue. */
export interface IssueFields {
  title: string
  state: 'open' | 'closed'
  /** The forge's labels, without any `board:` ones. */
  labels: string[]
  author: string
  authorAssociation: string
  url: string
  /** The issue's `updated_at`. */
  updatedAt: Date
}

/** One card. */
export interface Card extends IssueFields {
  /** `cardId(repo, number)`. */
  id: string
  /** `owner/name` as the sync was configured or the installation lists it. */
  repo: string
  number: number
  column: BoardColumn
  columnSetBy: ColumnSetBy
  columnChangedAt: Date
  /** Board-owned labels, each starting with `board:`. */
  boardLabels: string[]
  createdAt: Date
}

// The namespace of card ids: the UUIDv5 of a fixed URL in RFC 9562's URL namespace, so the ids are
// leasecron's own and stable across releases.
const CARD_NAMESPACE = uuidV5(NAMESPACE_URL, 'https://leasecron.dev/ns/board-card')

/**
 * The card id of issue `number` in `repo`: the UUIDv5 of `github:owner/repo#number`, lowercased first
 * because GitHub names are case-insensitive (REPOS=Acme/Widgets and the API's acme/widgets are one repo).
 */
export function cardId(repo: string, number: number): string {
  return uuidV5(CARD_NAMESPACE, `github:${repo.toLowerCase()}#${number}`)
}

/** The column a new card lands in: closed → done; open → triage for trusted authors, else needs-approval. */
export function initialColumn(fields: Pick<IssueFields, 'state' | 'authorAssociation'>): BoardColumn {
  if (fields.state === 'closed') return 'done'
  return TRUSTED_ASSOCIATIONS.has(fields.authorAssociation) ? 'triage' : 'needs-approval'
}

/** A new card for an issue first seen at `now`. */
export function newCard(repo: string, number: number, fields: IssueFields, now: Date): Card {
  return {
    id: cardId(repo, number),
    repo,
    number,
    ...fields,
    labels: [...fields.labels],
    column: initialColumn(fields),
    columnSetBy: 'sync',
    columnChangedAt: now,
    boardLabels: [],
    createdAt: now,
  }
}

/** The forge labels the sync may write: every one not in the board's `board:` namespace. */
export function forgeLabels(names: string[]): string[] {
  return names.filter((name) => !name.startsWith(BOARD_LABEL_PREFIX))
}

/**
 * Whether a card already carries `fields` exactly. `updated_at` has whole seconds only, so two updates in one
 * second share it: the fields themselves decide whether a re-read issue (one at the watermark) needs a write.
 */
export function holdsFields(card: IssueFields, fields: IssueFields): boolean {
  return (
    card.updatedAt.getTime() === fields.updatedAt.getTime() &&
    card.title === fields.title &&
    card.state === fields.state &&
    card.author === fields.author &&
    card.authorAssociation === fields.authorAssociation &&
    card.url === fields.url &&
    card.labels.length === fields.labels.length &&
    card.labels.every((label, i) => label === fields.labels[i])
  )
}
