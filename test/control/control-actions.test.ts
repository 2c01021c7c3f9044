/**
 * The control actions over the store contract (the memory twin; the HTTP API's tests run them on Mongo
 * too): `for` and `until` become the pause's end from the caller's `now`, a pause ends by itself, a bad
 * value is refused before anything is written, and the expected outcomes are values.
 */
import { describe, expect, it } from 'vitest'
import { ControlActionError } from '../../src/control/control-action-error.js'
import { pauseNet, requestRun, resumeNet } from '../../src/control/control-actions.js'
import { MemoryNetControlStore } from '../../src/control/memory-net-control-store.js'

const NOW = new Date('2026-03-29T12:00:00.000Z')
const later = (ms: number) => new Date(NOW.getTime() + ms)

describe('the control actions', () => {
  it('pause for a duration from now, and the pause ends by itself at its end', async () => {
    const controls = new MemoryNetControlStore()
    const result = await pauseNet(controls, 'tick', { for: '90m', reason: 'deploy', by: 'ann' }, NOW)
    expect(result.outcome).toBe('paused')
    expect(result.message).toBe('tick: paused by ann until 2026-03-29T13:30:00.000Z: deploy (90m)')
    expect(result.control.paused?.until).toEqual(later(90 * 60_000))
    expect((await controls.get('tick', later(90 * 60_000 - 1))).paused, 'ended early').toBeDefined()
    expect((await controls.get('tick', later(90 * 60_000))).paused, 'did not end by itself').toBeUndefined()
    const resumed = await resumeNet(controls, 'tick', {}, later(90 * 60_000))
    expect(resumed.outcome, 'an expired pause was resumed').toBe('not-paused')
  })

  it('pause until an instant with an offset, resume it once (with catch-up), then answer not-paused', async () => {
    const controls = new MemoryNetControlStore()
    const paused = await pauseNet(controls, 'tick', { until: '2026-03-29T16:00+0200', abort: true }, NOW)
    expect(paused.control.paused).toMatchObject({ until: later(2 * 3_600_000), abort: true })
    expect(paused.message).toContain('a pass in flight is aborted')
    const resumed = await resumeNet(controls, 'tick', { catchUp: true, by: 'bob' }, later(1_000))
    expect(resumed).toMatchObject({ outcome: 'resumed', control: { net: 'tick', catchUp: { by: 'bob' } } })
    expect(resumed.control.paused).toBeUndefined()
    expect((await resumeNet(controls, 'tick', {}, later(2_000))).outcome).toBe('not-paused')
  })

  it('refuses a bad for or until with a ControlActionError naming the field, writing nothing', async () => {
    const controls = new MemoryNetControlStore()
    const bad: [object, string[], RegExp][] = [
      [
        { for: '2 hours' },
        ['for'],
        /^expected a duration above zero such as 90s, 30m, 2h or 1d; got "2 hours"$/,
      ],
      [{ for: '0m' }, ['for'], /^expected a duration above zero/],
      [
        { for: '99999999d' },
        ['for'],
        /^expected a duration ending by \+275760-09-13T00:00:00.000Z, the last instant a date holds; got "99999999d"$/,
      ],
      [{ until: '2026-03-29 18:00' }, ['until'], /^expected an ISO 8601 instant with a time zone/],
      [{ until: '2026-03-29T18:00:00' }, ['until'], /^expected an ISO 8601 instant with a time zone/],
      [
        { until: '2026-03-29T11:59:59Z' },
        ['until'],
        /^expected an instant after now \(2026-03-29T12:00:00.000Z\)/,
      ],
      [{ until: NOW }, ['until'], /^expected an instant after now/],
      [{ for: '1h', until: '2026-03-30T00:00:00Z' }, ['for', 'until'], /^expected one of them, not both$/],
    ]
    for (const [input, fields, expected] of bad) {
      const error = await pauseNet(controls, 'tick', input, NOW).catch((e: unknown) => e)
      expect(error, `${JSON.stringify(input)} was accepted`).toBeInstanceOf(ControlActionError)
      expect(error).toMatchObject({ code: 'CONTROL_ACTION_INVALID', fields, action: 'pause', net: 'tick' })
      expect((error as ControlActionError).expected).toMatch(expected)
    }
    expect(await controls.list(NOW), 'a refused pause wrote a record').toEqual([])
  })

  it('asks for a run once: a second request while it is pending answers run-pending with the first', async () => {
    const controls = new MemoryNetControlStore()
    const first = await requestRun(controls, 'tick', { by: 'ann' }, NOW)
    const second = await requestRun(controls, 'tick', { by: 'bob' }, later(1_000))
    expect(first.outcome).toBe('run-requested')
    expect(second.outcome).toBe('run-pending')
    expect(second.control.run).toEqual(first.control.run)
    expect(second.message).toContain('2026-03-29T12:00:00.000Z is still pending')
  })
})
