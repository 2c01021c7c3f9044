/**
 * The bundle hands the Mongo driver a shim for saslprep that loads the package on first use
 * (scripts/bundle-shims/lazy-saslprep.cjs). SCRAM-SHA-256 authentication prepares every password through
 * it, so it must answer exactly as the package does, in every shape the driver may call it.
 */
import { createRequire } from 'node:module'
import { describe, expect, test } from 'vitest'

const require = createRequire(import.meta.url)
const shim = require('../../scripts/bundle-shims/lazy-saslprep.cjs') as {
  (input: string, options?: { allowUnassigned?: boolean }): string
  saslprep: (input: string, options?: { allowUnassigned?: boolean }) => string
  default: (input: string) => string
}
const real = require('@mongodb-js/saslprep') as (input: string, options?: object) => string

describe('the lazy saslprep shim', () => {
  test('prepares passwords as @mongodb-js/saslprep does (RFC 4013 examples), called every way the driver can', () => {
    const inputs = ['I\u00ADX', 'user', 'USER', '\u00AA', '\u2168', 'pass word\u00A0x']
    for (const input of inputs) {
      const expected = real(input)
      expect(shim.saslprep(input), `the driver would hash a different password for ${input}`).toBe(expected)
      expect(shim(input)).toBe(expected)
      expect(shim.default(input)).toBe(expected)
    }
    expect(shim.saslprep('I\u00ADX')).toBe('IX')
  })

  test('refuses what the package refuses (a prohibited character)', () => {
    expect(() => real('a\u0007')).toThrow()
    expect(() => shim.saslprep('a\u0007')).toThrow()
  })
})
