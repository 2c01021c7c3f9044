import { describe, expect, it } from 'vitest'
import { nextFireTime, slotAtOrBefore } from '../../src/schedule/schedule.js'
import { MEMO_SIZE, rememberedSlot } from '../../src/schedule/slot-memo.js'

describe('the slot memo: one walk per schedule, zone and second (issue 39)', () => {
  it('walks once for the same key and second, again for another second or key', () => {
    let walks = 0
    const walk = (slot: number) => () => {
      walks++
      return slot
    }
    expect(rememberedSlot('test\u0000a', 1000, walk(1))).toBe(1)
    expect(rememberedSlot('test\u0000a', 1000, walk(2))).toBe(1)
    expect(walks).toBe(1)
    expect(rememberedSlot('test\u0000b', 1000, walk(3))).toBe(3)
    expect(rememberedSlot('test\u0000a', 2000, walk(4))).toBe(4)
    expect(walks).toBe(3)
  })

  it('keeps a few seconds of a key: a tick that asks about two seconds in turn walks each once', () => {
    let walks = 0
    const walk = () => ++walks
    for (let round = 0; round < 3; round++) {
      rememberedSlot('test\u0000turns', 1000, walk)
      rememberedSlot('test\u0000turns', 2000, walk)
    }
    expect(walks).toBe(2)
  })

  it('keeps at most MEMO_SIZE answers: the oldest is walked again', () => {
    let walks = 0
    const walk = () => ++walks
    rememberedSlot('test\u0000oldest', 1000, walk)
    for (let i = 0; i < MEMO_SIZE; i++) rememberedSlot('test\u0000filler', i * 1000, walk)
    expect(walks).toBe(MEMO_SIZE + 1)
    rememberedSlot('test\u0000oldest', 1000, walk)
    expect(walks).toBe(MEMO_SIZE + 2)
  })

  it('does not keep a walk that threw: the next call walks again', () => {
    expect(() =>
      rememberedSlot('test\u0000throws', 1000, () => {
        throw new Error('no slot')
      }),
    ).toThrow('no slot')
    expect(rememberedSlot('test\u0000throws', 1000, () => 7)).toBe(7)
  })

  it('answers each zone apart, and a fresh Date each time (a caller may change its copy)', () => {
    const at = new Date('2026-09-30T15:05:09.500Z')
    expect(slotAtOrBefore('0 9 * * *', at, 'UTC').toISOString()).toBe('2026-09-30T09:00:00.000Z')
    expect(slotAtOrBefore('0 9 * * *', at, 'Asia/Tokyo').toISOString()).toBe('2026-09-30T00:00:00.000Z')
    const first = nextFireTime('0 9 * * *', at, 'UTC')
    first.setTime(0)
    expect(nextFireTime('0 9 * * *', at, 'UTC').toISOString()).toBe('2026-10-01T09:00:00.000Z')
  })

  it('reads an instant inside a second as its whole second, on either side of a slot', () => {
    expect(nextFireTime('* * * * * *', new Date('2026-09-30T15:05:09.000Z')).toISOString()).toBe(
      '2026-09-30T15:05:10.000Z',
    )
    expect(nextFireTime('* * * * * *', new Date('2026-09-30T15:05:09.999Z')).toISOString()).toBe(
      '2026-09-30T15:05:10.000Z',
    )
    expect(slotAtOrBefore('* * * * * *', new Date('2026-09-30T15:05:09.999Z')).toISOString()).toBe(
      '2026-09-30T15:05:09.000Z',
    )
  })
})
