import { availableParallelism } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { testWorkers } from './test-workers.js'

const saved = process.env.LEASECRON_TEST_WORKERS
afterEach(() => {
  if (saved === undefined) delete process.env.LEASECRON_TEST_WORKERS
  else process.env.LEASECRON_TEST_WORKERS = saved
})

describe('testWorkers', () => {
  it('runs two files per core by default, and never fewer than two', () => {
    delete process.env.LEASECRON_TEST_WORKERS
    expect(testWorkers(), 'the suite would run its waiting files one after another').toBe(
      Math.max(2, availableParallelism() * 2),
    )
  })

  it('takes LEASECRON_TEST_WORKERS when it is a whole number of 1 or more', () => {
    process.env.LEASECRON_TEST_WORKERS = '1'
    expect(testWorkers()).toBe(1)
    process.env.LEASECRON_TEST_WORKERS = '9'
    expect(testWorkers()).toBe(9)
  })

  it('refuses any other value, naming it and what it expected, rather than running on a guess', () => {
    for (const bad of ['0', '-2', '1.5', 'six', ' 4x']) {
      process.env.LEASECRON_TEST_WORKERS = bad
      expect(() => testWorkers(), `${bad} was taken`).toThrow(
        `LEASECRON_TEST_WORKERS is ${JSON.stringify(bad)}; expected a whole number of files run at once, 1 or more`,
      )
    }
  })
})
