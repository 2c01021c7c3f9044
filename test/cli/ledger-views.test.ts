/**
 * `leasecron status`'s lines for a lease whose stored document is malformed: the line says so and what is
 * wrong, capped; a sound lease's line says nothing of it.
 */
import { describe, expect, it } from 'vitest'
import type { LeaseRecord } from '../../src/lease/store.js'
import { historyJson, historyLines, statusLines } from '../../src/cli/ledger-views.js'

const NOW = new Date('2026-12-01T10:00:00Z')
const lease = (name: string, corrupt?: string): LeaseRecord => ({
  name,
  owner: 'host-a',
  fence: 3,
  expiresAt: new Date(NOW.getTime() + 10_000),
  renewedAt: NOW,
  ...(corrupt === undefined ? {} : { corrupt }),
})

describe('leasecron status', () => {
  it('names a corrupt lease document and what is wrong with it, capped at 500 characters', () => {
    const lines = statusLines(
      [
        lease('sound'),
        lease('broken', 'expiresAt: expected a date, got "soon"'),
        lease('long', 'y'.repeat(9_000)),
      ],
      new Map(),
      NOW,
    )
    expect(lines[1], 'a sound lease is called corrupt').not.toContain('corrupt')
    expect(lines[2]).toMatch(/^broken .* corrupt lease document: expiresAt: expected a date, got "soon"$/)
    expect(lines[3]).toContain(`corrupt lease document: ${'y'.repeat(500)}…(8500 more)`)
  })
  it("shows each lease's net's state in its own column, and a dash where it is not known", () => {
    const lines = statusLines(
      [lease('digest'), lease('other')],
      new Map(),
      NOW,
      new Map(),
      new Map([['digest', 'late']]),
    )
    expect(lines[0]).toMatch(/EXPIRES\s+STATE\s+LAST RUN$/)
    expect(lines[1]).toMatch(/ late +no run recorded$/)
    expect(lines[2], 'a state shown for a net not read').toMatch(/ - +no run recorded$/)
  })
})

describe('leasecron history', () => {
  it('shows a slot skipped for overlap with its outcome and 0 attempts', () => {
    const slot = new Date('2026-12-01T09:59:00Z')
    const run = {
      id: `tick-net@${slot.toISOString()}`,
      net: 'tick-net',
      slot,
      owner: 'host-a',
      fence: 3,
      startedAt: NOW,
      finishedAt: NOW,
      outcome: 'skipped' as const,
      attempts: 0,
    }
    expect(historyLines([run])[1], 'the skipped slot reads as running').toMatch(/ skipped {3}0 /)
    expect(historyJson(run)).toMatchObject({ outcome: 'skipped', attempts: 0, retakes: 0 })
  })

  it('says a run was taken over after its pass was cut off with its holder, in the table and in --json', () => {
    const slot = new Date('2026-12-01T09:59:00Z')
    const base = {
      id: 'r',
      net: 'tick-net',
      slot,
      owner: 'host-b',
      fence: 4,
      startedAt: NOW,
      finishedAt: NOW,
    }
    const run = { ...base, outcome: 'ok' as const, attempts: 1, retakes: 1 }
    expect(historyLines([run])[1], 'a retaken run reads as any run').toMatch(/ ok \(retake 1\) +1 /)
    expect(historyJson(run)).toMatchObject({ outcome: 'ok', retakes: 1 })
  })
  it('keeps attempts and requests in their columns when a manual run is listed', () => {
    // Was an outcome column of 9: "ok (manual)" pushed attempts one place right, under no header.
    const at = (iso: string) => new Date(iso)
    const base = { net: 'tick-net', owner: 'host-a', fence: 3, startedAt: NOW, finishedAt: NOW, attempts: 1 }
    const lines = historyLines([
      { ...base, id: 'm', slot: at('2026-12-01T09:59:30Z'), outcome: 'timed-out' as const, manual: true },
      { ...base, id: 's', slot: at('2026-12-01T09:59:00Z'), outcome: 'ok' as const },
    ])
    const column = (line: string, word: string) => line.indexOf(word)
    const attempts = column(lines[0]!, 'attempts')
    expect(lines[1]!.slice(attempts, attempts + 2), lines.join('\n')).toBe('1 ')
    expect(lines[2]!.slice(attempts, attempts + 2), lines.join('\n')).toBe('1 ')
    expect(column(lines[1]!, 'timed-out (manual)')).toBe(column(lines[0]!, 'outcome'))
  })
})
