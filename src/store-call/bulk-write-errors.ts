/**
 * The items an unordered bulk write (`insertMany`/`bulkWrite` with `ordered: false`) failed, read from the
 * driver's MongoBulkWriteError: the server went on past them, so every other item was written, and a
 * store can answer each item on its own (a duplicate key `false`, another refusal that item's error).
 *
 * What it is not: a way to read a failure of the whole call. A write-concern failure (the majority did
 * not acknowledge in time) leaves every item unconfirmed, as does an error of another kind (no answer,
 * the server's own refusal): for those this answers undefined and the caller fails every item.
 *
 * Recognised by its shape, not `instanceof`, for the reason duplicate-key.ts gives (the application's
 * own copy of the driver may have built the error).
 */

/** One item an unordered bulk write failed: its index in the items sent, the server's code and message. */
export interface BulkItemError {
  index: number
  code: number | undefined
  message: string
}

interface BulkWriteErrorShape {
  writeErrors?: unknown
  result?: { getWriteConcernError?: () => unknown }
}

/** The failed items of an unordered bulk write whose other items were written, or undefined (see above). */
export function bulkWriteErrors(error: unknown): BulkItemError[] | undefined {
  if (!(error instanceof Error) || error.name !== 'MongoBulkWriteError') return undefined
  const { writeErrors, result } = error as Error & BulkWriteErrorShape
  if (!Array.isArray(writeErrors) || writeErrors.length === 0) return undefined
  if (result?.getWriteConcernError?.() !== undefined) return undefined
  const items: BulkItemError[] = []
  for (const written of writeErrors) {
    const { index, code, errmsg } = (written ?? {}) as { index?: unknown; code?: unknown; errmsg?: unknown }
    if (typeof index !== 'number') return undefined
    items.push({
      index,
      code: typeof code === 'number' ? code : undefined,
      message: typeof errmsg === 'string' ? errmsg : 'the server refused the write',
    })
  }
  return items
}
