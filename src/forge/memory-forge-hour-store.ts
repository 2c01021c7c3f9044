/**
 * MemoryForgeHourStore: the forge-hour store inside one process (no MONGO_URI), where "the installation"
 * is this process. Not shared: a second process has its own.
 */
import {
  checkRow,
  type ForgeHourReadOptions,
  type ForgeHourRow,
  type ForgeHourStore,
  sumRows,
} from './forge-hour-store.js'

export class MemoryForgeHourStore implements ForgeHourStore {
  readonly #rows = new Map<string, ForgeHourRow & { owner: string }>()

  async put(owner: string, rows: readonly ForgeHourRow[], options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    for (const row of rows) checkRow(row)
    for (const row of rows) this.#rows.set(`${owner}|${row.hour}|${row.lane}`, { ...row, owner })
  }

  async read(since: Date, options?: ForgeHourReadOptions) {
    options?.signal?.throwIfAborted()
    const from = since.getTime()
    return sumRows(
      [...this.#rows.values()]
        .filter((r) => r.hour >= from && r.owner !== options?.except)
        .map(({ owner: _owner, ...row }) => row),
    )
  }

  async prune(before: Date, options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    let deleted = 0
    for (const [key, row] of this.#rows) {
      if (row.hour < before.getTime()) {
        this.#rows.delete(key)
        deleted++
      }
    }
    return deleted
  }
}
