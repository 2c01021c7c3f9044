/**
 * The admin token's comparison: it goes through node:crypto's timingSafeEqual (observed with a spy that
 * calls the real function), always over two equal-length digests, so tokens of any lengths compare
 * without throwing; and the bearer header is read strictly.
 */
import type * as Crypto from 'node:crypto'
import { beforeEach, describe, expect, it, vi } from 'vitest'

const compared = vi.hoisted(() => ({ lengths: [] as [number, number][] }))
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>()
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.lengths.push([a.byteLength, b.byteLength])
      return real.timingSafeEqual(a, b)
    },
  }
})

const { bearerToken, tokenMatches } = await import('../../../src/worker/admin/admin-token.js')

const TOKEN = 'a-configured-token-0123456789abcdef'

describe('the admin token comparison', () => {
  beforeEach(() => {
    compared.lengths.length = 0
  })

  it('accepts the configured token and compares it with timingSafeEqual over 32-byte digests', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true)
    expect(compared.lengths, 'the comparison did not go through timingSafeEqual').toEqual([[32, 32]])
  })

  it('refuses tokens of other lengths and contents without throwing, each through timingSafeEqual', () => {
    const wrong = [
      '',
      'x',
      TOKEN.slice(0, -1),
      `${TOKEN}x`,
      TOKEN.toUpperCase(),
      'é'.repeat(40),
      TOKEN.repeat(50),
    ]
    for (const given of wrong) expect(tokenMatches(given, TOKEN), `${given} was accepted`).toBe(false)
    expect(compared.lengths).toEqual(wrong.map(() => [32, 32]))
  })

  it('reads only a Bearer credential from the Authorization header', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN)
    expect(bearerToken(`bearer  ${TOKEN} `)).toBe(TOKEN)
    expect(bearerToken(undefined)).toBeUndefined()
    expect(bearerToken('')).toBeUndefined()
    expect(bearerToken(`Basic ${TOKEN}`)).toBeUndefined()
    expect(bearerToken('Bearer')).toBeUndefined()
    expect(bearerToken(`Bearer ${TOKEN} extra`)).toBeUndefined()
  })
})
