/**
 * Bad documents: a stored document a store twin could not read as its contract says (a field missing or
 * of the wrong type, written by hand, by another program or by an older version). The twin that owns the
 * collection parses every document it reads; what it cannot use it reports here, once per distinct bad
 * document, and answers without it (or as `corrupt`) instead of throwing.
 *
 * It is not a logger or a metric: the twin calls `onBadDocument`, and the worker turns that into a log
 * line and `leasecron_store_bad_documents_total{collection}` (lease/ and runs/ know neither).
 */

/** One bad document as a twin found it. */
export interface BadDocument {
  /** The collection (or, for a memory twin, the map) the document was read from. */
  collection: string
  /** The document's `_id`, as text. */
  id: string
  /** What is wrong with it, field by field (`expiresAt: expected date, received string`). */
  problem: string
}

/** Called once per distinct bad document (a new problem of the same document is reported again). */
export type OnBadDocument = (bad: BadDocument) => void

/** How many distinct bad documents a reporter remembers; past it the oldest may be reported again. */
const REMEMBERED = 1_000

/** One problem a schema found in a document: where (`path`) and what (zod's issues have this shape). */
export interface DocumentIssue {
  readonly path: readonly PropertyKey[]
  readonly message: string
}

/** The one-line problem of a failed parse: each issue as `field: what was expected`. */
export function describeIssues(issues: readonly DocumentIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'document'
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')}`
    })
    .join('; ')
}

/**
 * Deduplicates reports: `report` calls `onBadDocument` only when this document's problem differs from the
 * one last reported for it; `clear` forgets a document read well again, so breaking it again is reported.
 * A throwing callback is ignored: reporting must never fail the read that found the document.
 */
export class BadDocumentReporter {
  readonly #collection: string
  readonly #onBadDocument: OnBadDocument | undefined
  readonly #reported = new Map<string, string>()

  constructor(collection: string, onBadDocument: OnBadDocument | undefined) {
    this.#collection = collection
    this.#onBadDocument = onBadDocument
  }

  report(id: string, problem: string): void {
    if (this.#reported.get(id) === problem) return
    this.#reported.delete(id)
    this.#reported.set(id, problem)
    if (this.#reported.size > REMEMBERED) this.#reported.delete(this.#reported.keys().next().value!)
    try {
      this.#onBadDocument?.({ collection: this.#collection, id, problem })
    } catch {
      // A log sink or counter that throws is its own problem, never the read's.
    }
  }

  clear(id: string): void {
    this.#reported.delete(id)
  }
}

/** A document's `_id` as text, whatever its type. */
export function documentId(doc: { _id?: unknown }): string {
  const id = doc._id
  return typeof id === 'string' ? id : (JSON.stringify(id) ?? String(id))
}
