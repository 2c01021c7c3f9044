/**
 * MongoForgeHourStore: the forge-hour store in collection `forge_hours`, one document per owner, hour and
 * lane (`_id: "<owner>|<hour ISO>|<lane>"`), so every replica reads the whole installation's spend.
 * Summing happens here rather than in an aggregation: 24 hours × lanes × replicas is a few hundred rows,
 * and plain finds behave the same on MongoDB and FerretDB. A read takes the hours of its window only, at
 * most FORGE_HOUR_ROWS_READ documents, newest first: 5,000 rows dated 2030 once made every /status
 * 19 MB and 3.5 s. Every call is bounded (store-call.ts): the
 * server's `maxTimeMS` and the caller's signal; a failure is a StoreError (`STORE_CALL_FAILED`,
 * `STORE_CALL_ABORTED`) naming `MongoForgeHourStore` and the operation.
 *
 * The stored shape is the one every version wrote: `hour` is the start of the hour, as a Date.
 *
 * Every document read is parsed: a malformed one (a figure that is not a whole number ≥ 0, a lane that is
 * not a string) is skipped and reported once through `onBadDocument`, so the page and `/status` show only
 * numbers the meter could have written.
 */
import type { Collection, Db } from 'mongodb'
import * as z from 'zod'
import {
  BadDocumentReporter,
  describeIssues,
  documentId,
  type OnBadDocument,
} from '../../store-call/bad-document.js'
import { checkReadCap } from '../../store-call/read-cap.js'
import {
  type CallBounds,
  plainStoreError,
  type StoreCall,
  StoreCollection,
  type StoreCallOptions,
} from '../../store-call/store-call.js'
import {
  checkRow,
  FORGE_HOUR_ROWS_READ,
  type ForgeHourReadOptions,
  type ForgeHourRow,
  type ForgeHourStore,
  type ForgeHourWindow,
  sumRows,
} from './forge-hour-store.js'

const figure = z.number().int().nonnegative()
const forgeHourSchema = z.object({
  hour: z.date(),
  lane: z.string(),
  requests: figure,
  // Written by every version since the page had them; older documents may lack them.
  notModified: figure.optional(),
  points: figure.optional(),
})

interface ForgeHourDocument {
  _id: string
  owner: string
  hour: Date
  lane: string
  requests: number
  notModified: number
  points: number
}

export const FORGE_HOURS_COLLECTION = 'forge_hours'
/** The order of forge-hour-store.ts's `newestFirst`, kept by the server before the cut. */
const NEWEST_FIRST = { hour: -1, owner: 1, lane: 1 } as const
const COMPONENT = 'MongoForgeHourStore'
/** Upserts of one put in flight at once (put says why not one bulk write). */
const PUT_IN_FLIGHT = 4

export class MongoForgeHourStore implements ForgeHourStore {
  readonly #collection: StoreCollection<ForgeHourDocument>
  readonly #bad: BadDocumentReporter
  readonly #rowsRead: number

  /**
   * `onBadDocument`: called once per distinct malformed document read (then skipped); `rowsRead`: the
   * most documents one read takes (FORGE_HOUR_ROWS_READ; smaller in tests).
   */
  constructor(db: Db, options: { onBadDocument?: OnBadDocument; rowsRead?: number } = {}) {
    this.#rowsRead = checkReadCap(COMPONENT, 'rowsRead', options.rowsRead, FORGE_HOUR_ROWS_READ)
    this.#collection = new StoreCollection<ForgeHourDocument>(db, FORGE_HOURS_COLLECTION, {
      component: COMPONENT,
    })
    this.#bad = new BadDocumentReporter(FORGE_HOURS_COLLECTION, options.onBadDocument)
  }

  /**
   * One upsert per row, PUT_IN_FLIGHT at a time, each its own command: not one bulk write. FerretDB 1.24
   * keeps each update of a command holding one of its PostgreSQL pool connections until the whole command
   * ends, so one bulk of 24 hours × lanes rows took its whole pool and waited on itself (the installations
   * bench's 100 × 3 cell: 40 connections held by forge-hour updates, every call after them stalled). A
   * failed row does not stop the others; the first failure is thrown once all were tried.
   */
  async put(owner: string, rows: readonly ForgeHourRow[], options?: StoreCallOptions) {
    options?.signal?.throwIfAborted()
    for (const row of rows) checkRow(row)
    if (rows.length === 0) return
    const upsert = (hours: Collection<ForgeHourDocument>, bounds: CallBounds, row: ForgeHourRow) => {
      const hour = new Date(row.hour)
      const { requests, notModified, points, lane } = row
      return hours.updateOne(
        { _id: `${owner}|${hour.toISOString()}|${lane}` },
        { $set: { owner, hour, lane, requests, notModified, points } },
        { upsert: true, ...bounds.write },
      )
    }
    await this.#collection.call(call('put', options), async (hours, bounds) => {
      const failures: unknown[] = []
      for (let i = 0; i < rows.length; i += PUT_IN_FLIGHT) {
        const group = rows.slice(i, i + PUT_IN_FLIGHT).map((row) => upsert(hours, bounds, row))
        for (const outcome of await Promise.allSettled(group))
          if (outcome.status === 'rejected') failures.push(outcome.reason)
      }
      if (failures.length > 0) throw failures[0]
    })
  }

  async read(window: ForgeHourWindow, options?: ForgeHourReadOptions) {
    const filter = {
      hour: { $gte: window.since, $lte: window.until },
      ...(options?.except === undefined ? {} : { owner: { $ne: options.except } }),
    }
    const docs = await this.#collection.call(call('read', options), (hours, bounds) =>
      hours.find(filter, bounds.find).sort(NEWEST_FIRST).limit(this.#rowsRead).toArray(),
    )
    return sumRows(docs.flatMap((doc) => this.#row(doc)))
  }

  /** The row a stored document holds; none (reported once) when it is malformed. */
  #row(doc: ForgeHourDocument): ForgeHourRow[] {
    const parsed = forgeHourSchema.safeParse(doc)
    if (!parsed.success) {
      this.#bad.report(documentId(doc), describeIssues(parsed.error.issues))
      return []
    }
    const d = parsed.data
    return [
      {
        hour: d.hour.getTime(),
        lane: d.lane,
        requests: d.requests,
        notModified: d.notModified ?? 0,
        points: d.points ?? 0,
      },
    ]
  }

  async prune(window: ForgeHourWindow, options?: StoreCallOptions) {
    const outside = { $or: [{ hour: { $lt: window.since } }, { hour: { $gt: window.until } }] }
    const result = await this.#collection.call(call('prune', options), (hours, bounds) =>
      hours.deleteMany(outside, bounds.write),
    )
    return result.deletedCount
  }
}

/** One call's signal and error (a StoreError naming this store and the operation). */
function call(operation: string, options: StoreCallOptions | undefined): StoreCall {
  return { signal: options?.signal, error: plainStoreError({ component: COMPONENT, operation }) }
}
