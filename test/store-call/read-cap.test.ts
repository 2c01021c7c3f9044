/** checkReadCap (store-call/read-cap.ts): the count bound every twin of a growable read checks alike. */
import { describe, expect, it } from 'vitest'
import { checkReadCap } from '../../src/store-call/read-cap.js'
import { MemoryForgeHourStore } from '../../src/forge/meter/memory-forge-hour-store.js'
import { MemoryReplicaStore } from '../../src/lease/memory-replica-store.js'
import { MemoryBoardStore } from '../../src/nets/board-sync/memory-board-store.js'

describe('checkReadCap', () => {
  it('gives the store its own cap when none is set, and a whole cap as given', () => {
    expect(checkReadCap('S', 'rowsRead', undefined, 10_000)).toBe(10_000)
    expect(checkReadCap('S', 'rowsRead', 3, 10_000)).toBe(3)
  })

  it.each([0, -1, 1.5, Number.NaN, '3', null])('refuses %s, naming the component and the option', (cap) => {
    expect(() => checkReadCap('S', 'rowsRead', cap, 10)).toThrow(
      new RangeError(`S: rowsRead must be a whole number ≥ 1, got ${String(cap)}`),
    )
  })

  it('is what the forge-hour, replica and board twins check their caps with', () => {
    expect(() => new MemoryForgeHourStore({ rowsRead: 0 }), 'a forge-hour store read nothing').toThrow(
      /rowsRead/,
    )
    expect(() => new MemoryReplicaStore({ liveRead: 0 }), 'a replica store read nothing').toThrow(/liveRead/)
    expect(() => new MemoryBoardStore({ cardsRead: 0 }), 'a board store listed nothing').toThrow(/cardsRead/)
  })
})
