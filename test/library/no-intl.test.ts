/**
 * The built worker never builds an Intl date formatter for UTC schedules: the first one a process builds
 * touches ~8 MiB of ICU's data in the `node` binary, which stays resident (bench/NOTES.md, "Where an idle
 * worker's memory goes"). `leasecron once` on the bundle checks ten schedules, computes a slot and runs a
 * pass — the paths the idle worker repeats every tick — under a preload that reports every construction.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { bundledIdleOnce } from '../support/bundled-idle-once.js'

const dir = mkdtempSync(join(tmpdir(), 'leasecron-no-intl-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TRAP = `
const Real = Intl.DateTimeFormat
Intl.DateTimeFormat = new Proxy(Real, {
  construct(target, args, newTarget) {
    process.stderr.write('INTL ' + new Error().stack.split('\\n').slice(2, 5).join(' | ') + '\\n')
    return Reflect.construct(target, args, newTarget)
  },
})
`

describe('the bundled worker and Intl', () => {
  test('runs a pass of a UTC schedule without building a single Intl.DateTimeFormat', () => {
    const trap = join(dir, 'trap.mjs')
    writeFileSync(trap, TRAP)
    const run = bundledIdleOnce(['--import', trap], 'no_intl')
    expect(run.status, `leasecron once failed: ${run.stderr.slice(0, 500)}`).toBe(0)
    const built = run.stderr.split('\n').filter((l) => l.startsWith('INTL '))
    expect(built, 'an idle worker would keep ~8 MiB of ICU data resident for these').toEqual([])
  })
})
