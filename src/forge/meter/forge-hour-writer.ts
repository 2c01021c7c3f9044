/**
 * ForgeHourWriter: copies one replica's meter hours to its ForgeHourStore, sending only the rows whose
 * figures changed since its last successful write. The meter keeps 24 hours × lanes, and a lane per net and
 * installation makes that 24,000 rows for a replica serving 1,000 installations; every 15 s all of them
 * would be written again though only the current hour moves.
 *
 * What it is not: a cache of the store. A row another writer changed is not re-read; a write that failed
 * is sent whole again next time (nothing is remembered from it).
 */
import type { StoreCallOptions } from '../../store-call/store-call.js'
import type { ForgeHourRow, ForgeHourStore } from './forge-hour-store.js'

const keyOf = (row: ForgeHourRow) => `${row.hour}|${row.lane}`
const figuresOf = (row: ForgeHourRow) => `${row.requests}|${row.notModified}|${row.points}`

export class ForgeHourWriter {
  readonly #owner: string
  /** What the store holds from this writer, as far as it knows: key → figures. */
  readonly #written = new Map<string, string>()

  constructor(owner: string) {
    this.#owner = owner
  }

  /**
   * Writes the rows of `rows` that changed since the last successful write through `store` (none: no
   * call). Rejects as the store's put does; nothing is remembered then. Rows no longer in `rows` (hours
   * the meter let go) are forgotten.
   */
  async write(
    store: ForgeHourStore,
    rows: readonly ForgeHourRow[],
    options?: StoreCallOptions,
  ): Promise<number> {
    const changed = rows.filter((row) => this.#written.get(keyOf(row)) !== figuresOf(row))
    if (changed.length > 0) await store.put(this.#owner, changed, options)
    const current = new Set(rows.map(keyOf))
    for (const key of this.#written.keys()) if (!current.has(key)) this.#written.delete(key)
    for (const row of changed) this.#written.set(keyOf(row), figuresOf(row))
    return changed.length
  }
}
