/**
 * MongoForgeHourStore: the forge-hour store in collection `forge_hours`, one document per owner, hour and
 * lane (`_id: "<owner>|<hour ISO>|<lane>"`), so every replica reads the whole installation's spend.
 * Summing happens here rather than in an aggregation: 24 hours × lanes × replicas is a few hundred rows,
 * and plain finds behave the same on MongoDB and FerretDB. Writes check their signal before sending only
 * (the driver takes a signal on reads alone); callers bound them with the client's timeouts.
 *
 * Every document read is parsed: a malformed one (a figure that is not a whole number ≥ 0, a lane that is
 * not a string) is skipped and reported once through `onBadDocument`, so the page and `/status` show only
 * numbers the meter could have written.
 */
import type { Collection, Db } from 'mongodb'
import { z } from 'zod'
import {
  BadDocumentReporter,
  describeIssues,
  documentId,
  type OnBadDocument,
} from '../store-call/bad-document.js'
import {
  checkRow,
  type ForgeHourReadOptions,
  type ForgeHourRow,
  type ForgeHourStore,
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

export class MongoForgeHourStore implements ForgeHourStore {
  readonly #collection: Collection<ForgeHourDocument>
  readonly #bad: BadDocumentReporter

  /** `onBadDocument`: called once per distinct malformed document read (then skipped). */
  constructor(db: Db, options: { onBadDocument?: OnBadDocument } = {}) {
    this.#collection = db.collection<ForgeHourDocument>(FORGE_HOURS_COLLECTION)
    this.#bad = new BadDocumentReporter(FORGE_HOURS_COLLECTION, options.onBadDocument)
  }

  async put(owner: string, rows: readonly ForgeHourRow[], options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    for (const row of rows) checkRow(row)
    if (rows.length === 0) return
    await this.#collection.bulkWrite(
      rows.map((row) => {
        const hour = new Date(row.hour)
        const { requests, notModified, points, lane } = row
        return {
          updateOne: {
            filter: { _id: `${owner}|${hour.toISOString()}|${lane}` },
            update: { $set: { owner, hour, lane, requests, notModified, points } },
            upsert: true,
          },
        }
      }),
      { ordered: false },
    )
  }

  async read(since: Date, options?: ForgeHourReadOptions) {
    const filter = {
      hour: { $gte: since },
      ...(options?.except === undefined ? {} : { owner: { $ne: options.except } }),
    }
    const docs = await this.#collection
      .find(filter, options?.signal ? { signal: options.signal } : {})
      .toArray()
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

  async prune(before: Date, options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    const result = await this.#collection.deleteMany({ hour: { $lt: before } })
    return result.deletedCount
  }
}
