/**
 * The worker's run ledger: MongoRunLedger (collection `net_runs`) when the worker has a database, so one
 * pass per slot holds across replicas; MemoryRunLedger otherwise (one process, like its leases).
 */
import type { Db } from 'mongodb'
import type { OnBadDocument } from '../store-call/bad-document.js'
import { MemoryRunLedger } from '../runs/memory-run-ledger.js'
import { MongoRunLedger } from '../runs/mongo-run-ledger.js'
import type { RunLedger } from '../runs/run-ledger.js'
import type { Logger } from './logger.js'

/**
 * Opens the ledger. With a database, its `history` index is created once `connected` resolves, in the
 * background: claims rely on the `_id` index alone, so a missing index slows history, never a pass.
 * A malformed run it reads is skipped and handed to `onBadDocument`.
 */
export function openRunLedger(
  db: Db | undefined,
  connected: Promise<void> | undefined,
  log: Logger,
  onBadDocument?: OnBadDocument,
): RunLedger {
  if (!db) return new MemoryRunLedger()
  const ledger = new MongoRunLedger(db, onBadDocument ? { onBadDocument } : {})
  void (connected ?? Promise.resolve())
    .then(() => ledger.ensureIndexes({ signal: AbortSignal.timeout(30_000) }))
    .catch((error: unknown) => log.warn({ err: error }, 'could not create the run ledger’s history index'))
  return ledger
}
