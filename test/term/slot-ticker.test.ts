import { afterEach, expect, it, vi } from 'vitest'
import { systemClock } from '../../src/lease/clock.js'
import { SlotTicker, type SlotTickerOptions } from '../../src/term/slot-ticker.js'

afterEach(() => vi.useRealTimers())

/** Pulls the ticker's ticks as the scheduler does, noting each as `<when> <slot>`. */
function pullTicks(options: SlotTickerOptions, ticks: string[]): SlotTicker {
  const ticker = new SlotTicker(options)
  void (async () => {
    for (let slot = await ticker.next(); slot; slot = await ticker.next())
      ticks.push(`${new Date().toISOString()} ${slot.toISOString()}`)
  })()
  return ticker
}

function tick(schedule: string, timeZone: string, from: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(new Date(from))
  const ticks: string[] = []
  const ticker = pullTicks(
    {
      schedule,
      timeZone,
      clock: systemClock,
    },
    ticks,
  )
  return { ticks, ticker }
}

it('waits past the longest timer for a yearly slot and fires once, at the slot, for it', async () => {
  const { ticks, ticker } = tick('0 0 1 1 *', 'Europe/Berlin', '2026-01-02T00:00:00Z')
  await vi.advanceTimersByTimeAsync(370 * 86_400_000)
  ticker.stop()
  expect(ticks).toEqual(['2026-12-31T23:00:00.000Z 2026-12-31T23:00:00.000Z'])
})

it('fires nothing early when the wall clock is set back, and the slot when it comes', async () => {
  const { ticks, ticker } = tick('30 2 * * *', 'Europe/Berlin', '2026-03-29T00:00:00Z')
  await vi.advanceTimersByTimeAsync(30 * 60_000)
  vi.setSystemTime(new Date('2026-03-28T23:30:00Z')) // an hour back, with the timer due at 01:00Z
  await vi.advanceTimersByTimeAsync(30 * 60_000)
  expect(ticks, 'a tick fired before its slot').toEqual([])
  await vi.advanceTimersByTimeAsync(60 * 60_000)
  ticker.stop()
  expect(ticks).toEqual(['2026-03-29T01:00:00.000Z 2026-03-29T01:00:00.000Z'])
})

it('serves the latest slot due when its timer fires late, and stops for good', async () => {
  const { ticks, ticker } = tick('*/15 * * * *', 'America/New_York', '2026-11-01T05:50:00Z')
  vi.setSystemTime(new Date('2026-11-01T06:20:00Z')) // the host slept through 06:00 and 06:15
  await vi.advanceTimersByTimeAsync(10 * 60_000)
  expect(ticks).toEqual(['2026-11-01T06:30:00.000Z 2026-11-01T06:30:00.000Z'])
  ticker.stop()
  await vi.advanceTimersByTimeAsync(60 * 60_000)
  expect(ticks).toHaveLength(1)
})

it('with an offset ticks that long after each slot and serves that slot, never the one before', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(new Date('2026-12-02T04:00:05Z'))
  const ticks: string[] = []
  const ticker = pullTicks(
    {
      schedule: '*/30 * * * * *',
      timeZone: 'UTC',
      clock: systemClock,
      offsetMs: 7_250,
    },
    ticks,
  )
  await vi.advanceTimersByTimeAsync(63_000)
  ticker.stop()
  expect(ticks, 'the passes did not start at their spread instant, one period apart').toEqual([
    '2026-12-02T04:00:37.250Z 2026-12-02T04:00:30.000Z',
    '2026-12-02T04:01:07.250Z 2026-12-02T04:01:00.000Z',
  ])
})

it('with an offset, a term begun between a slot and its spread instant leaves that slot to its catch-up', async () => {
  const { ticks, ticker } = tickFrom('2026-12-02T04:00:32Z', 7_250)
  await vi.advanceTimersByTimeAsync(36_000)
  ticker.stop()
  expect(ticks, 'the 04:00:30 slot, the catch-up’s, was ticked a second time').toEqual([
    '2026-12-02T04:01:07.250Z 2026-12-02T04:01:00.000Z',
  ])
})

it('with an offset, a timer that fires late serves the newest slot whose spread instant has passed', async () => {
  const { ticks, ticker } = tickFrom('2026-12-02T04:00:05Z', 7_250)
  // The host slept 32.75 s: the timer set for 04:00:37.25 fires at 04:01:10, past 04:01:00's spread instant.
  vi.setSystemTime(new Date('2026-12-02T04:00:37.750Z'))
  await vi.advanceTimersByTimeAsync(32_250)
  expect(ticks).toEqual(['2026-12-02T04:01:10.000Z 2026-12-02T04:01:00.000Z'])
  await vi.advanceTimersByTimeAsync(27_250)
  ticker.stop()
  expect(ticks, 'the next tick left its spread instant').toEqual([
    '2026-12-02T04:01:10.000Z 2026-12-02T04:01:00.000Z',
    '2026-12-02T04:01:37.250Z 2026-12-02T04:01:30.000Z',
  ])
})

function tickFrom(from: string, offsetMs: number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(new Date(from))
  const ticks: string[] = []
  const ticker = pullTicks(
    {
      schedule: '*/30 * * * * *',
      timeZone: 'UTC',
      clock: systemClock,
      offsetMs,
    },
    ticks,
  )
  return { ticks, ticker }
}

/** The ticks of `schedule` in Berlin for the slots of 2026 (local), with `offsetMs`. */
async function yearOfTicks(schedule: string, offsetMs: number): Promise<{ at: number; slot: string }[]> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'))
  const ticks: string[] = []
  const ticker = pullTicks({ schedule, timeZone: 'Europe/Berlin', clock: systemClock, offsetMs }, ticks)
  await vi.advanceTimersByTimeAsync(367 * 86_400_000)
  ticker.stop()
  vi.useRealTimers()
  return ticks
    .map((line) => {
      const [at, slot] = line.split(' ')
      return { at: Date.parse(at!), slot: slot! }
    })
    .filter((t) => t.slot < '2026-12-31T23:00:00.000Z')
}

it('with an offset of nearly a whole gap, ticks every slot of a Berlin year, each before the next slot', async () => {
  const plain = await yearOfTicks('30 2 * * *', 0)
  // 23 h 50 min: around the spring day 02:30 CET → 03:00 CEST (the DST rule) → 02:30 CEST are 23.5 h apart.
  const offset = (23 * 60 + 50) * 60_000
  const jittered = await yearOfTicks('30 2 * * *', offset)
  expect(plain).toHaveLength(365)
  expect(
    jittered.map((t) => t.slot),
    'the offset lost or added a slot of the year',
  ).toEqual(plain.map((t) => t.slot))
  for (let i = 0; i + 1 < jittered.length; i++)
    expect(jittered[i]!.at, `${jittered[i]!.slot}'s pass started after the next slot`).toBeLessThan(
      Date.parse(jittered[i + 1]!.slot),
    )
  const shortened = jittered.filter((t) => t.at - Date.parse(t.slot) < offset)
  expect(
    shortened.map((t) => `${t.slot} +${t.at - Date.parse(t.slot)}`),
    'only the slots before the two 23.5 h spring gaps start early, 1 ms before the next slot',
  ).toEqual(['2026-03-28T01:30:00.000Z +84599999', '2026-03-29T01:00:00.000Z +84599999'])
})
