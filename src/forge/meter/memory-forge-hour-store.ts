/**
 * MemoryForgeHourStore: the forge-hour store inside one process (no MONGO_URI), where "the installation"
 * is this process. Not shared: a second process has its own.
 */
import { checkReadCap } from '../../store-call/read-cap.js'
import {
  checkRow,
  FORGE_HOUR_ROWS_READ,
  type ForgeHourReadOptions,
  type ForgeHourRow,
  type ForgeHourStore,
  type ForgeHourWindow,
  newestFirst,
  sumRows,
} from './forge-hour-store.js'

export class MemoryForgeHourStore implements ForgeHourStore {
  readonly #rows = new Map<string, ForgeHourRow & { owner: string }>()
  readonly #rowsRead: number

  /** `rowsRead`: the most stored rows one read takes (FORGE_HOUR_ROWS_READ; smaller in tests). */
  constructor(options: { rowsRead?: number } = {}) {
    this.#rowsRead = checkReadCap('MemoryForgeHourStore', 'rowsRead', options.rowsRead, FORGE_HOUR_ROWS_READ)
  }

  async put(owner: string, rows: readonly ForgeHourRow[], options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    for (const row of rows) checkRow(row)
    for (const row of rows) this.#rows.set(`${owner}|${row.hour}|${row.lane}`, { ...row, owner })
  }

  async read(window: ForgeHourWindow, options?: ForgeHourReadOptions) {
    options?.signal?.throwIfAborted()
    return sumRows(
      [...this.#rows.values()]
        .filter((r) => inWindow(r.hour, window) && r.owner !== options?.except)
        .sort(newestFirst)
        .slice(0, this.#rowsRead)
        .map(({ owner: _owner, ...row }) => row),
    )
  }

  async prune(window: ForgeHourWindow, options?: { signal?: AbortSignal }) {
    options?.signal?.throwIfAborted()
    let deleted = 0
    for (const [key, row] of this.#rows) {
      if (!inWindow(row.hour, window)) {
        this.#rows.delete(key)
        deleted++
      }
    }
    return deleted
  }
}

function inWindow(hour: number, window: ForgeHourWindow): boolean {
  return hour >= window.since.getTime() && hour <= window.until.getTime()
}
