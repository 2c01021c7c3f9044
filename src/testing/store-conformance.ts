/**
 * The one conformance suite every LeaseStore runs: both twins must answer identical calls identically,
 * and a store of your own (Redis, Postgres, …) passes it before it elects anything. It registers vitest
 * tests (`describe`/`it`) when called, so call it at the top level of a vitest test file. It is not a
 * load or fault test: the chaos suite covers those for the built-in stores.
 */
import { describe, expect, it } from 'vitest'
import { LeaseLostError, type LeaseStore, LeaseStoreError } from '../lease/store.js'

export interface ConformanceOptions {
  /**
   * Why concurrent takeover of an existing, expired lease cannot be checked on this server (FerretDB applies
   * an update as read-then-write); the case is skipped with this reason printed. Undefined: it runs.
   */
  expiredTakeoverRaceUnsupported?: string
}

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (ms: number) => new Date(t0.getTime() + ms)

/**
 * Registers the conformance tests of `makeStore` under `label`. `makeStore` is called once per test and
 * must give an empty store each time. A failing test names the contract clause the store broke.
 */
export function storeConformance(
  label: string,
  makeStore: () => LeaseStore | Promise<LeaseStore>,
  options: ConformanceOptions = {},
): void {
  describe(`${label} conformance`, () => {
    describe('acquire', () => {
      it('takes an absent lease and records the owner and truncated expiry', async () => {
        const store = await makeStore()
        expect(await store.acquire('net-a', 'alpha', t0, 3000)).toBe(true)
        expect(await store.list()).toEqual([
          { name: 'net-a', owner: 'alpha', expiresAt: at(3000), renewedAt: t0 },
        ])
      })

      it('refuses with false while another owner holds the lease unexpired', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.acquire('net-a', 'beta', at(2999), 3000), 'a live lease was stolen').toBe(false)
        expect((await store.list())[0]?.owner).toBe('alpha')
      })

      it('treats the expiry instant itself as expired', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.acquire('net-a', 'beta', at(3000), 3000), 'an expired lease stayed taken').toBe(
          true,
        )
        expect(await store.list()).toEqual([
          { name: 'net-a', owner: 'beta', expiresAt: at(6000), renewedAt: at(3000) },
        ])
      })

      it('lets the holder acquire again and extends its expiry', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.acquire('net-a', 'alpha', at(1000), 3000)).toBe(true)
        expect((await store.list())[0]?.expiresAt).toEqual(at(4000))
      })

      it('never moves an expiry backward when a late, older stamp arrives', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', at(1000), 3000)
        expect(await store.acquire('net-a', 'alpha', t0, 3000), 'a late stamp is still a success').toBe(true)
        expect((await store.list())[0]?.expiresAt, 'a late stamp shortened the lease').toEqual(at(4000))
      })

      it('succeeds when the same millisecond changes nothing', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.acquire('net-a', 'alpha', t0, 3000)).toBe(true)
        expect(await store.renew('net-a', 'alpha', t0, 3000)).toBe(true)
      })

      it('truncates a fractional-millisecond ttl', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 1500.9)
        expect((await store.list())[0]?.expiresAt).toEqual(at(1500))
      })

      it('trims names and owners', async () => {
        const store = await makeStore()
        expect(await store.acquire('  net-a ', ' alpha  ', t0, 3000)).toBe(true)
        expect(
          await store.acquire('net-a', 'alpha', at(1), 3000),
          'the trimmed owner is a different owner',
        ).toBe(true)
        expect((await store.list()).map((l) => [l.name, l.owner])).toEqual([['net-a', 'alpha']])
      })

      it('keeps independent names independent', async () => {
        const store = await makeStore()
        expect(await store.acquire('net-a', 'alpha', t0, 3000)).toBe(true)
        expect(await store.acquire('net-b', 'beta', t0, 3000)).toBe(true)
        await store.release('net-a', 'alpha')
        expect((await store.list()).map((l) => [l.name, l.owner])).toEqual([['net-b', 'beta']])
      })
    })

    describe('renew', () => {
      it('extends only the caller’s own lease', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.renew('net-a', 'alpha', at(1000), 3000)).toBe(true)
        expect(await store.renew('net-a', 'beta', at(1000), 3000), 'a stranger renewed the lease').toBe(false)
        expect(await store.list()).toEqual([
          { name: 'net-a', owner: 'alpha', expiresAt: at(4000), renewedAt: at(1000) },
        ])
      })

      it('is false for a missing lease and does not create it', async () => {
        const store = await makeStore()
        expect(await store.renew('net-a', 'alpha', t0, 3000)).toBe(false)
        expect(await store.list(), 'renew created a lease').toEqual([])
      })

      it('is false after release and leaves the lease free', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        await store.release('net-a', 'alpha')
        expect(await store.renew('net-a', 'alpha', at(500), 3000)).toBe(false)
        expect(await store.list(), 'a renewal resurrected a released lease').toEqual([])
        expect(await store.acquire('net-a', 'beta', at(600), 3000)).toBe(true)
      })

      it('still renews an expired lease nobody took', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        expect(await store.renew('net-a', 'alpha', at(5000), 3000)).toBe(true)
        expect((await store.list())[0]?.expiresAt).toEqual(at(8000))
      })

      it('never shortens the lease with a late, older stamp', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        await store.renew('net-a', 'alpha', at(2000), 3000)
        expect(await store.renew('net-a', 'alpha', at(1000), 3000)).toBe(true)
        expect(await store.list(), 'a late renewal moved the expiry back').toEqual([
          { name: 'net-a', owner: 'alpha', expiresAt: at(5000), renewedAt: at(2000) },
        ])
      })
    })

    describe('release', () => {
      it('deletes the holder’s lease so anyone can take it at once', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        await store.release('net-a', 'alpha')
        expect(await store.acquire('net-a', 'beta', at(1), 3000), 'a released lease still blocked').toBe(true)
      })

      it('is a no-op for an absent lease', async () => {
        const store = await makeStore()
        await expect(store.release('net-a', 'alpha')).resolves.toBeUndefined()
      })

      it('rejects a holder that overran with LeaseLostError and the successor keeps the lease', async () => {
        const store = await makeStore()
        await store.acquire('net-a', 'alpha', t0, 3000)
        await store.acquire('net-a', 'beta', at(3500), 3000)
        const error = await store.release('net-a', 'alpha').catch((e: unknown) => e)
        expect(error).toBeInstanceOf(LeaseLostError)
        expect(error).toMatchObject({
          name: 'LeaseLostError',
          code: 'LEASE_LOST',
          lease: 'net-a',
          owner: 'alpha',
          holder: 'beta',
        })
        expect((await store.list())[0]?.owner, 'a stale release removed the successor').toBe('beta')
      })
    })

    describe('concurrency', () => {
      it('elects exactly one of 8 concurrent candidates for a fresh lease, round after round', async () => {
        const store = await makeStore()
        for (let round = 0; round < 10; round++) {
          const name = `fresh-${round}`
          const answers = await Promise.all(
            Array.from({ length: 8 }, (_, i) => store.acquire(name, `candidate-${i}`, t0, 3000)),
          )
          expect(answers.filter(Boolean), `round ${round}: not exactly one winner`).toHaveLength(1)
        }
      })

      it.skipIf(options.expiredTakeoverRaceUnsupported !== undefined)(
        `elects exactly one of 8 concurrent candidates taking over an expired lease${
          options.expiredTakeoverRaceUnsupported
            ? ` (skipped: ${options.expiredTakeoverRaceUnsupported})`
            : ''
        }`,
        async () => {
          const store = await makeStore()
          await store.acquire('net-a', 'old-holder', t0, 1000)
          for (let round = 0; round < 10; round++) {
            const now = at(1000 + round * 1000)
            const answers = await Promise.all(
              Array.from({ length: 8 }, (_, i) =>
                store.acquire('net-a', `r${round}-candidate-${i}`, now, 1000),
              ),
            )
            expect(answers.filter(Boolean), `round ${round}: not exactly one winner`).toHaveLength(1)
          }
        },
      )
    })

    describe('bad calls', () => {
      it('rejects an already-aborted signal and changes nothing', async () => {
        const store = await makeStore()
        const signal = AbortSignal.abort(new Error('stopping'))
        await store.acquire('held', 'alpha', t0, 3000)
        for (const call of [
          () => store.acquire('net-a', 'alpha', t0, 3000, { signal }),
          () => store.renew('held', 'alpha', at(1000), 3000, { signal }),
          () => store.release('held', 'alpha', { signal }),
          () => store.list({ signal }),
        ]) {
          await expect(call()).rejects.toMatchObject({ name: 'LeaseStoreError', code: 'LEASE_CALL_ABORTED' })
        }
        expect(await store.list(), 'an aborted call wrote anyway').toEqual([
          { name: 'held', owner: 'alpha', expiresAt: at(3000), renewedAt: t0 },
        ])
      })

      it.each([
        ['a blank name', ['  ', 'alpha', t0, 3000], /lease name/],
        ['an absurdly long name', ['n'.repeat(1000), 'alpha', t0, 3000], /lease name/],
        ['a blank owner', ['net-a', '', t0, 3000], /owner/],
        ['an invalid date', ['net-a', 'alpha', new Date('nope'), 3000], /now must be a valid Date/],
        ['a ttl under 1 ms', ['net-a', 'alpha', t0, 0.5], /ttlMs/],
        ['a ttl that is not finite', ['net-a', 'alpha', t0, Number.POSITIVE_INFINITY], /ttlMs/],
        ['a ttl that is NaN', ['net-a', 'alpha', t0, Number.NaN], /ttlMs/],
      ] as const)('rejects %s with a clear error and writes nothing', async (_what, args, message) => {
        const store = await makeStore()
        const [name, owner, now, ttl] = args as unknown as [string, string, Date, number]
        for (const call of [
          () => store.acquire(name, owner, now, ttl),
          () => store.renew(name, owner, now, ttl),
        ]) {
          const error = await call().catch((e: unknown) => e)
          expect(error).toBeInstanceOf(LeaseStoreError)
          expect(error).toMatchObject({ code: 'LEASE_INVALID_ARGUMENT' })
          expect((error as Error).message).toMatch(message)
        }
        expect(await store.list(), 'a rejected call wrote a lease').toEqual([])
      })

      it('names the lease in an argument error', async () => {
        const store = await makeStore()
        await expect(store.acquire('net-a', 'alpha', t0, -1)).rejects.toThrow(/lease "net-a".*ttlMs/)
        await expect(store.release('net-a', ' ')).rejects.toThrow(/lease "net-a".*owner/)
      })
    })
  })
}
