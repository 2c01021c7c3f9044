/**
 * Where the worker's store twins report a malformed document (store-call/bad-document.ts): one warning line
 * naming the collection, the document's `_id` and what is wrong, and `leasecron_store_bad_documents_total`.
 * The twins already report each distinct bad document once, so this neither deduplicates nor throttles.
 */
import type { BadDocument, OnBadDocument } from '../store-call/bad-document.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'

/** The line's message: what the worker did with the document, and what the operator should do. */
export const BAD_DOCUMENT_MESSAGE =
  'malformed document in the store: shown as corrupt or skipped, never used as it is; fix or delete it'

/** The sink a worker (or a command) gives its Mongo twins as `onBadDocument`. */
export function badDocumentSink(log: Logger, metrics?: WorkerMetrics): OnBadDocument {
  return (bad: BadDocument) => {
    metrics?.storeBadDocuments.inc({ collection: bad.collection })
    log.warn({ collection: bad.collection, documentId: bad.id, problem: bad.problem }, BAD_DOCUMENT_MESSAGE)
  }
}

/** One sentence about a bad document, for a command's stderr or a snapshot's notes. */
export function describeBadDocument(bad: BadDocument): string {
  return `malformed ${bad.collection} document ${JSON.stringify(bad.id)} (${bad.problem}): shown as corrupt or skipped`
}
