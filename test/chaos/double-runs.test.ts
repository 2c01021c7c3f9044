/** The checker's double-run count on traces written by hand (pure, no processes): a retake is not a double. */
import { describe, expect, it } from 'vitest'
import type { LogLine } from '../support/worker-process.js'
import { doubleRunsOf, type WorkerTrace } from './checker.js'

const SLOT = '2026-10-01T12:00:05.000Z'

/** One worker's trace: a pass of SLOT started at `mono`, ended or not, said to be a retake or not. */
function trace(
  owner: string,
  fence: number,
  mono: number,
  how: { ended: boolean; retake?: number },
): WorkerTrace {
  const said = { level: 'info', time: new Date(mono).toISOString(), msg: 'chaos pass' }
  const start = {
    ...said,
    event: 'pass-start',
    net: 'chaos-tick',
    slot: SLOT,
    owner,
    fence,
    term: 1,
    pass: 1,
    mono,
  }
  const lines: LogLine[] = [
    { ...start, ...(how.retake ? { retake: how.retake } : {}) },
    ...(how.ended ? [{ ...said, event: 'pass-end', term: 1, pass: 1, mono: mono + 10, ok: true }] : []),
  ]
  return { id: owner, owner, skewMs: 0, lines, text: [], exit: { code: null, signal: null } }
}

describe('double runs as the chaos checker counts them', () => {
  it('counts a slot run again after its pass was cut off with its holder as retaken, not double', () => {
    const found = doubleRunsOf([
      trace('killed', 3, 1_000, { ended: false }),
      trace('successor', 4, 9_000, { ended: true, retake: 1 }),
    ])
    expect(found).toEqual({ slots: 1, double: [], retaken: 1 })
  })

  it('counts a retake of a pass that ended as a double run', () => {
    const found = doubleRunsOf([
      trace('stalled', 3, 1_000, { ended: true }),
      trace('successor', 4, 9_000, { ended: true, retake: 1 }),
    ])
    expect(found.double, 'a finished pass ran again unnoticed').toHaveLength(1)
    expect(found.retaken).toBe(0)
  })

  it('counts a second start that does not say retake as a double run, the first cut off or not', () => {
    const found = doubleRunsOf([
      trace('killed', 3, 1_000, { ended: false }),
      trace('successor', 4, 9_000, { ended: true }),
    ])
    expect(found.double, 'a claimed slot ran twice unnoticed').toEqual([
      { slot: `chaos-tick@${SLOT}`, runs: ['killed fence 3 pass 1', 'successor fence 4 pass 1'] },
    ])
  })
})
