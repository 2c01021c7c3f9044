/**
 * A malformed net definition — as a JavaScript embedder or a cast can pass to createWorker — is refused
 * as a ConfigError naming the net and its missing fields, before the configuration reads it.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, createWorker, LEASES } from '../../src/index.js'
import type { NetDefinition } from '../../src/nets/net.js'

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
