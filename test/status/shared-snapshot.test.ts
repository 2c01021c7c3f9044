/**
 * sharedSnapshot on a clock the test moves: readers during a collection wait for it, readers within a
 * second of it get the same snapshot, and the first reader after that second starts the next collection.
 */
import { describe, expect, it } from 'vitest'
import { type Clock, systemClock } from '../../src/lease/clock.js'
import { collectStatus } from '../../src/status/collect-status.js'
import { SNAPSHOT_MAX_AGE_MS, sharedSnapshot } from '../../src/status/shared-snapshot.js'
import type { StatusSnapshot } from '../../src/status/status-snapshot.js'

describe('the shared status snapshot', () => {
  it('collects once for concurrent readers and again only after a second', async () => {
    let monotonic = 0
    const clock: Clock = { ...systemClock, monotonic: () => monotonic }
    let collections = 0
    const collect = (): Promise<StatusSnapshot> => {
      collections++
      return collectStatus(
        {
          replica: null,
          nets: [],
          storeKind: 'memory',
          forgeScope: 'replica',
          ping: async () => true,
          serverVersion: async () => null,
          leases: async () => [],
          forgeHours: async () => [],
        },
        new Date(),
      )
    }
    const read = sharedSnapshot(collect, clock)
    const burst = await Promise.all(Array.from({ length: 20 }, () => read()))
    expect(collections, 'concurrent readers each collected').toBe(1)
    expect(new Set(burst).size).toBe(1)
    monotonic += SNAPSHOT_MAX_AGE_MS - 1
    expect(await read(), 'a snapshot younger than a second was collected again').toBe(burst[0])
    expect(collections).toBe(1)
    monotonic += 2
    expect(await read(), 'a snapshot older than a second was served').not.toBe(burst[0])
    expect(collections).toBe(2)
  })
})
