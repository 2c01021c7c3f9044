/**
 * A malformed net definition — as a JavaScript embedder or a cast can pass to createWorker — is refused
 * as a ConfigError naming the net and its missing fields, before the configuration reads it.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, createWorker } from '../../src/index.js'
import type { NetDefinition } from '../../src/nets/net.js'
import { LEASES } from '../../src/nets.js'

describe('net definitions handed to the worker', () => {
  it('refuses a definition without options, setup and term as a ConfigError naming the net and those fields', () => {
    // The shape a newcomer writes by analogy with other schedulers: a `run` instead of setup/term.
    const loose = {
      name: 'tick',
      lease: LEASES[0]?.name,
      description: 'ticks',
      schedule: '* * * * *',
      run() {},
    }
    let thrown: unknown
    try {
      createWorker({ nets: [loose as unknown as NetDefinition], env: { LOG_LEVEL: 'silent' } })
    } catch (error) {
      thrown = error
    }
    expect(
      thrown,
      'a malformed net must be a ConfigError (exit 78), not a TypeError from inside',
    ).toBeInstanceOf(ConfigError)
    const message = (thrown as ConfigError).message
    expect(message).toContain('nets[0] ("tick")')
    expect(message, 'the error must name each missing field').toContain('got no options, setup, term')
  })

  it('names a definition that is not an object at all', () => {
    expect(() =>
      createWorker({ nets: [null as unknown as NetDefinition], env: { LOG_LEVEL: 'silent' } }),
    ).toThrow(/nets\[0\]: expected a net definition \(defineNet\) with .*; got null/)
  })
})

/** A net definition that passes every check, to spoil one field at a time. */
const base = {
  name: 'tick',
  lease: LEASES[0]?.name ?? 'merge-gate-sweeper',
  description: 'ticks',
  schedule: '* * * * *',
  options: {},
  setup: () => undefined,
  term: () => async () => undefined,
}

/** The ConfigError message createWorker refuses `net` with; fails the test when it is accepted. */
function refusal(net: unknown): string {
  try {
    createWorker({ nets: [net as NetDefinition], env: { LOG_LEVEL: 'silent' } })
  } catch (error) {
    expect(error, 'a ConfigError (exit 78), not a TypeError from inside').toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
  }
  throw new Error('the definition was accepted: the net would run with the field ignored or misread')
}

describe('what a net definition holds', () => {
  it('refuses a name that is no kebab-case, before it becomes a variable prefix with a space in it', () => {
    // Accepted before: `config` printed the prefix LEASECRON_NET_BAD NAME_ and every pass failed at the lane.
    const message = refusal({ ...base, name: 'Bad Name' })
    expect(message).toContain('nets[0] ("Bad Name")')
    expect(message).toMatch(/kebab-case .*got "Bad Name"/)
  })

  it('refuses a name too long for its per-installation forge lane', () => {
    expect(refusal({ ...base, name: `n${'-a'.repeat(25)}` })).toContain('at most 50 characters')
  })

  it('names an options entry that is no option helper, instead of a TypeError reading its schema', () => {
    // Before: "Cannot read properties of undefined (reading 'safeParse')", exit 1, naming nothing.
    const message = refusal({ ...base, options: { DAYS: 14, LIMIT: { default: 1 } } })
    expect(message).toMatch(
      /nets\[0\] \("tick"\) options\.DAYS: expected an option made by integerOption.*got the number 14/,
    )
    expect(message).toContain('options.LIMIT')
    expect(message).toContain('got an object with keys default')
  })

  it('names nets that are no array', () => {
    expect(() =>
      createWorker({ env: { LOG_LEVEL: 'silent' } } as unknown as { nets: NetDefinition[] }),
    ).toThrow(/nets: expected an array of net definitions \(defineNet\); got undefined/)
  })

  it('names a lease missing from the configuration without pointing at a file the user did not write', () => {
    const message = refusal({ ...base, lease: 'nightly' })
    expect(message).toContain("add defineLease('nightly', '<what it elects>') to the configuration's leases")
    expect(message).not.toContain('worker.config.ts')
    expect(message).not.toContain('src/leases.ts')
  })
  it('names a net listed twice, instead of calling it a lease shared by two nets', () => {
    let message = ''
    try {
      createWorker({ nets: [base as NetDefinition, base as NetDefinition], env: { LOG_LEVEL: 'silent' } })
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      message = (error as ConfigError).message
    }
    expect(message, 'two nets of one name would read one set of variables and share ledger keys').toContain(
      'nets[0], nets[1] ("tick")',
    )
    expect(message).toContain('each net listed once, under a name of its own; got the name "tick" 2 times')
  })
})

describe('a misspelt field of a net definition', () => {
  it('is refused with the field it meant, instead of running the net on the default it meant to change', () => {
    // Before: accepted, and the net ran its schedule in UTC rather than Europe/Berlin.
    const message = refusal({ ...base, timezone: 'Europe/Berlin' })
    expect(message).toContain('nets[0] ("tick") timezone: expected a field of defineNet')
    expect(message).toContain('leaving the default timeZone in place — did you mean timeZone?')
  })

  it('names catch_up, pingURL and catchup as catchUp, pingUrl and catchUp', () => {
    expect(refusal({ ...base, catch_up: 'all' })).toContain('did you mean catchUp?')
    expect(refusal({ ...base, pingURL: 'https://hc.example/x' })).toContain('did you mean pingUrl?')
    expect(refusal({ ...base, catchup: 'none' })).toContain('did you mean catchUp?')
  })

  it('names the required field a typo left out beside the missing field', () => {
    const { schedule, ...rest } = base
    const message = refusal({ ...rest, shedule: schedule })
    expect(message).toContain('got no schedule')
    expect(message).toContain('nets[0] ("tick") shedule: expected a field of defineNet')
    expect(message).toContain('did you mean schedule?')
  })

  it('names an optional field of the wrong type, instead of failing inside as "text.trim is not a function"', () => {
    // Before: `catchUpWindow: 3600000` (milliseconds, as TTL_MS takes them) stopped `config` with that TypeError.
    const message = refusal({ ...base, catchUpWindow: 3_600_000, catchUpMax: '5' })
    expect(message).toContain(
      `nets[0] ("tick") catchUpWindow: expected a string: a duration with its unit, e.g. '6h'; got the number 3600000`,
    )
    expect(message).toContain(
      'nets[0] ("tick") catchUpMax: expected a number: a whole number of slots, e.g. 10; got a string',
    )
  })

  it('names an overlap or a scope it does not take, instead of running the net as the default', () => {
    // Before: accepted; `overlap: 'queue'` ran as buffer-one and `scope: 'per-installation'` as global.
    const message = refusal({ ...base, overlap: 'queue', scope: 'per-installation' })
    expect(message).toContain(
      `nets[0] ("tick") overlap: expected a string: 'buffer-one', 'buffer-all', 'skip', 'replace' or 'allow'; got "queue"`,
    )
    expect(message).toContain(
      `nets[0] ("tick") scope: expected a string: 'global', 'installation' or 'one-installation'; got "per-installation"`,
    )
  })

  it('leaves fields far from every known one to the embedder', () => {
    const worker = createWorker({
      nets: [{ ...base, ownerTeam: 'platform' } as NetDefinition],
      env: { LOG_LEVEL: 'silent', PORT: '0' },
    })
    expect(worker).toBeDefined()
  })
})
