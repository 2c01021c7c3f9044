/**
 * ForgeHourWriter over the memory twin of the forge-hour store: only rows whose figures changed since its
 * last successful write are sent, a failed write is sent whole again, and what it sent is what a read sees.
 */
import { describe, expect, it } from 'vitest'
import type { ForgeHourRow, ForgeHourStore } from '../../../src/forge/meter/forge-hour-store.js'
import { ForgeHourWriter } from '../../../src/forge/meter/forge-hour-writer.js'
import { MemoryForgeHourStore } from '../../../src/forge/meter/memory-forge-hour-store.js'

const HOUR = 3_600_000
const base = Date.parse('2026-12-06T00:00:00Z')
const row = (h: number, lane: string, requests: number): ForgeHourRow => ({
  hour: base + h * HOUR,
  lane,
  requests,
  notModified: 0,
  points: requests,
})
const day = Array.from({ length: 24 }, (_, h) => ['a', 'b', 'c'].map((lane) => row(h, lane, h + 1))).flat()

/** The memory store, recording each put's rows; `failing` makes the next put reject. */
function recordingStore() {
  const inner = new MemoryForgeHourStore()
  const puts: ForgeHourRow[][] = []
  let failing = false
  const store: ForgeHourStore = {
    put: async (owner, rows, options) => {
      if (failing) {
        failing = false
        throw new Error('the store is down')
      }
      puts.push([...rows])
      await inner.put(owner, rows, options)
    },
    read: (window, options) => inner.read(window, options),
    prune: (window, options) => inner.prune(window, options),
  }
  return { store, puts, failNext: () => (failing = true) }
}

describe('ForgeHourWriter', () => {
  it('sends every row first, then only the rows whose figures changed, then nothing when none did', async () => {
    const { store, puts } = recordingStore()
    const writer = new ForgeHourWriter('replica-1')
    expect(await writer.write(store, day)).toBe(72)
    const moved = day.map((r) => (r.hour === base + 23 * HOUR && r.lane === 'b' ? { ...r, requests: 99 } : r))
    expect(await writer.write(store, moved)).toBe(1)
    expect(puts[1], 'an unchanged hour was written again').toEqual([{ ...row(23, 'b', 24), requests: 99 }])
    expect(await writer.write(store, moved), 'nothing changed, yet the store was called').toBe(0)
    expect(puts).toHaveLength(2)
    const read = await store.read({ since: new Date(base), until: new Date(base + 24 * HOUR) })
    expect(read.find((r) => r.lane === 'b' && r.hour === base + 23 * HOUR)?.requests).toBe(99)
  })

  it('sends a failed write whole again: what did not land is not taken as written', async () => {
    const { store, puts, failNext } = recordingStore()
    const writer = new ForgeHourWriter('replica-1')
    failNext()
    await expect(writer.write(store, day)).rejects.toThrow('the store is down')
    expect(await writer.write(store, day), 'rows of a failed write were skipped as written').toBe(72)
    expect(puts).toHaveLength(1)
  })

  it('writes a row again that came back after the meter let it go', async () => {
    const { store } = recordingStore()
    const writer = new ForgeHourWriter('replica-1')
    await writer.write(store, day)
    await writer.write(store, day.slice(3))
    expect(await writer.write(store, day), 'a row the meter dropped and kept again was not written').toBe(3)
  })
})
