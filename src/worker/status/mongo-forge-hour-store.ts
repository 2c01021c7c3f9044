/**
 * MongoForgeHourStore: the forge-hour store in collection `forge_hours`, one document per owner, hour and
 * lane (`_id: "<owner>|<hour ISO>|<lane>"`), so every replica reads the whole installation's spend.
 * Summing happens here rather than in an aggregation: 24 hours × lanes × replicas is a few hundred rows,
 * and plain finds behave the same on MongoDB and FerretDB. Writes check their signal before sending only
 * (the driver takes a signal on reads alone); callers bound them with the client's timeouts.
 */
import type { Collection, Db } from 'mongodb'
import {
  checkRow,
  type ForgeHourReadOptions,
  type ForgeHourRow,
  type ForgeHourStore,
  sumRows,
} from './forge-hour-store.js'

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

  constructor(db: Db) {
    this.#collection = db.collection<ForgeHourDocument>(FORGE_HOURS_COLLECTION)
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
    return sumRows(
      docs.map((d) => ({
        hour: d.hour.getTime(),
        lane: d.lane,
        requests: d.requests,
        notModified: d.notModified ?? 0,
        points: d.points ?? 0,
      })),
    )
  }

  async prune(before: Date, options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    const result = await this.#collection.deleteMany({ hour: { $lt: before } })
    return result.deletedCount
  }
}
