/**
 * The one conformance suite every LeaseStore runs: both twins must answer identical calls identically,
 * fenced terms included, and a store of your own (Redis, Postgres, …) passes it before it elects anything.
 * It registers vitest tests (`describe`/`it`) when called, so call it at the top level of a vitest test
 * file. It is not a load or fault test: the chaos suite covers those for the built-in stores.
 */
import { describe, expect, it } from 'vitest'
import { LeaseLostError, type LeaseStore, LeaseStoreError } from '../lease/store.js'
import { at, granted, storeWith, t0 } from './conformance-terms.js'
import { getManyCases } from './get-many-cases.js'
import { noticeCases } from './notice-cases.js'
import { renewManyCases } from './renew-many-cases.js'

export interface ConformanceOptions {
  /**
   * Why concurrent takeover of an existing, expired lease cannot be checked on this server (FerretDB applies
   * an update as read-then-write); the case is skipped with this reason printed. Undefined: it runs.
   */
  expiredTakeoverRaceUnsupported?: string
  /**
   * Writes raw values into the stored lease `name` of `store`, as another program could (MongoStore: the
   * driver's `$set`, `$unset` for `undefined`), with the LeaseRecord's field names (`owner`, `fence`,
   * `expiresAt`, `renewedAt`). Undefined for a store that cannot hold a malformed lease — MemoryStore keeps
   * typed entries that only it writes — and then the malformed-lease cases are skipped, saying so.
   */
  writeRaw?: (store: LeaseStore, name: string, fields: Record<string, unknown>) => Promise<void>
}

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
    acquireCases(makeStore)
    fenceCases(makeStore)
    renewCases(makeStore)
    renewManyCases(makeStore)
    getManyCases(makeStore)
    noticeCases(makeStore)
    releaseCases(makeStore)
    concurrencyCases(makeStore, options)
    badCallCases(makeStore)
    malformedLeaseCases(makeStore, options.writeRaw)
    vacancyCases(makeStore)
    expiryCases(makeStore)
  })
}

type MakeStore = () => LeaseStore | Promise<LeaseStore>

/** acquire's cases, by the state of the lease the call meets; in this order, as one `acquire` group. */
function acquireCases(makeStore: MakeStore): void {
  describe('acquire', () => {
    acquireFreshCases(makeStore)
    acquireHeldByAnotherCases(makeStore)
    acquireByHolderCases(makeStore)
    acquireInputCases(makeStore)
    acquireNameCases(makeStore)
  })
}

/** A lease nobody ever held: the first term starts at fence 1. */
function acquireFreshCases(makeStore: MakeStore): void {
  it('takes an absent lease and records the owner, fence and truncated expiry', async () => {
    const store = await makeStore()
    const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
    expect(grant).toEqual({
      name: 'net-a',
      owner: 'alpha',
      token: expect.any(String),
      fence: 1,
      expiresAt: at(3000),
    })
    expect(await store.list()).toEqual([
      { name: 'net-a', owner: 'alpha', fence: 1, expiresAt: at(3000), renewedAt: t0 },
    ])
    expect(await store.get('net-a')).toEqual((await store.list())[0])
  })
}

/** Another owner holds the lease: refused while live, taken over from the expiry instant on. */
function acquireHeldByAnotherCases(makeStore: MakeStore): void {
  it('refuses with false while another owner holds the lease unexpired', async () => {
    const store = await makeStore()
    await store.acquire('net-a', 'alpha', t0, 3000)
    expect(await store.acquire('net-a', 'beta', at(2999), 3000), 'a live lease was stolen').toBe(false)
    expect(await store.get('net-a')).toMatchObject({ owner: 'alpha', fence: 1 })
  })

  it('treats the expiry instant itself as expired and names the previous holder', async () => {
    const store = await makeStore()
    await store.acquire('net-a', 'alpha', t0, 3000)
    const grant = await granted(
      store.acquire('net-a', 'beta', at(3000), 3000),
      'an expired lease stayed taken',
    )
    expect(grant).toMatchObject({ owner: 'beta', fence: 2, expiresAt: at(6000), previousHolder: 'alpha' })
    expect(await store.list()).toEqual([
      { name: 'net-a', owner: 'beta', fence: 2, expiresAt: at(6000), renewedAt: at(3000) },
    ])
  })
}

/** The holder acquires its own lease again: a new term, never a step back in time or expiry. */
function acquireByHolderCases(makeStore: MakeStore): void {
  it('lets the holder acquire again as a new term and extends its expiry', async () => {
    const store = await makeStore()
    const first = await granted(store.acquire('net-a', 'alpha', t0, 3000))
    const second = await granted(store.acquire('net-a', 'alpha', at(1000), 3000))
    expect(second).toMatchObject({ fence: 2, expiresAt: at(4000), previousHolder: 'alpha' })
    expect(second.token, 'a new term reused the earlier term’s token').not.toBe(first.token)
  })

  it('refuses the holder’s late acquire stamped before its latest term, keeping that term', async () => {
    const store = await makeStore()
    const newer = await granted(store.acquire('net-a', 'alpha', at(1000), 3000))
    expect(await store.acquire('net-a', 'alpha', t0, 3000), 'a resent acquire ended the newer term').toBe(
      false,
    )
    expect(await store.get('net-a'), 'a late stamp changed the lease').toMatchObject({
      fence: newer.fence,
      expiresAt: at(4000),
    })
    expect(await store.renew(newer, at(1500), 3000)).toBe(true)
  })

  it('never moves an expiry backward when the holder acquires again with a shorter ttl', async () => {
    const store = await makeStore()
    await store.acquire('net-a', 'alpha', t0, 3000)
    const again = await granted(store.acquire('net-a', 'alpha', at(1000), 1000))
    expect(again.expiresAt, 'the grant reports an expiry the store does not hold').toEqual(at(3000))
    expect((await store.get('net-a'))?.expiresAt, 'a shorter ttl shortened the lease').toEqual(at(3000))
  })
}

/** How the arguments are taken: ttl truncated, names and owners trimmed, the caller's token used. */
function acquireInputCases(makeStore: MakeStore): void {
  it('truncates a fractional-millisecond ttl', async () => {
    const store = await makeStore()
    await store.acquire('net-a', 'alpha', t0, 1500.9)
    expect((await store.get('net-a'))?.expiresAt).toEqual(at(1500))
  })

  it('trims names and owners', async () => {
    const store = await makeStore()
    expect(await store.acquire('  net-a ', ' alpha  ', t0, 3000)).toMatchObject({
      name: 'net-a',
      owner: 'alpha',
    })
    expect(
      await store.acquire('net-a', 'alpha', at(1), 3000),
      'the trimmed owner is a different owner',
    ).not.toBe(false)
    expect((await store.list()).map((l) => [l.name, l.owner])).toEqual([['net-a', 'alpha']])
  })

  it('uses the token the caller drew, so an unanswered acquire can be released by it', async () => {
    const store = await makeStore()
    const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000, { token: 'drawn-by-caller' }))
    expect(grant.token).toBe('drawn-by-caller')
    await store.release({ name: 'net-a', owner: 'alpha', token: 'drawn-by-caller' })
    expect(await store.get('net-a'), 'the release by the drawn token left the lease held').toMatchObject({
      owner: undefined,
    })
  })
}

/** One name's lease never touches another's. */
function acquireNameCases(makeStore: MakeStore): void {
  it('keeps independent names independent', async () => {
    const store = await makeStore()
    const a = await granted(store.acquire('net-a', 'alpha', t0, 3000))
    expect(await store.acquire('net-b', 'beta', t0, 3000)).toMatchObject({ fence: 1 })
    await store.release(a)
    expect((await store.list()).map((l) => [l.name, l.owner])).toEqual([
      ['net-a', undefined],
      ['net-b', 'beta'],
    ])
  })

  it('answers get for a lease it never had with undefined', async () => {
    const store = await makeStore()
    expect(await store.get('never')).toBeUndefined()
  })
}

function fenceCases(makeStore: MakeStore): void {
  describe('fence', () => {
    it('grows strictly across owners, re-acquires and releases, and survives a release', async () => {
      const store = await makeStore()
      const fences: number[] = []
      const a1 = await granted(store.acquire('net-a', 'alpha', t0, 1000))
      fences.push(a1.fence)
      fences.push((await granted(store.acquire('net-a', 'alpha', at(100), 1000))).fence)
      const b1 = await granted(store.acquire('net-a', 'beta', at(1200), 1000))
      fences.push(b1.fence)
      await store.release(b1)
      expect(await store.get('net-a'), 'a released lease lost its fence counter').toMatchObject({
        owner: undefined,
        expiresAt: undefined,
        fence: b1.fence,
      })
      const a2 = await granted(
        store.acquire('net-a', 'alpha', at(1300), 1000),
        'a released lease stayed taken',
      )
      expect(a2.previousHolder, 'the grant after a release did not name the releasing holder').toBe('beta')
      fences.push(a2.fence)
      await store.release(a2)
      fences.push((await granted(store.acquire('net-a', 'alpha', at(1400), 1000))).fence)
      expect(fences, 'a term got a fence not greater than an earlier term’s').toEqual([1, 2, 3, 4, 5])
    })

    it('is not bumped by refused acquires, renewals or releases', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.acquire('net-a', 'beta', at(10), 3000)
      await store.renew(grant, at(20), 3000)
      expect((await store.get('net-a'))?.fence).toBe(1)
      await store.release(grant)
      expect((await granted(store.acquire('net-a', 'beta', at(30), 3000))).fence).toBe(2)
    })
  })
}

function renewCases(makeStore: MakeStore): void {
  describe('renew', () => {
    it('extends only the grant’s own term', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      expect(await store.renew(grant, at(1000), 3000)).toBe(true)
      expect(
        await store.renew({ ...grant, owner: 'beta' }, at(1000), 3000),
        'a stranger renewed the lease',
      ).toBe(false)
      expect(await store.list()).toEqual([
        { name: 'net-a', owner: 'alpha', fence: 1, expiresAt: at(4000), renewedAt: at(1000) },
      ])
    })

    it('refuses the same owner’s earlier term once a newer one began, changing nothing', async () => {
      const store = await makeStore()
      const old = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.acquire('net-a', 'alpha', at(100), 1000)
      expect(
        await store.renew(old, at(500), 30_000),
        'an earlier term’s renewal extended the newer term',
      ).toBe(false)
      expect((await store.get('net-a'))?.expiresAt).toEqual(at(3000))
    })

    it('is false for a missing lease and does not create it', async () => {
      const store = await makeStore()
      expect(await store.renew({ name: 'net-a', owner: 'alpha', token: 'x' }, t0, 3000)).toBe(false)
      expect(await store.list(), 'renew created a lease').toEqual([])
    })

    it('is false after release and leaves the lease free', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.release(grant)
      expect(await store.renew(grant, at(500), 3000)).toBe(false)
      expect(await store.get('net-a'), 'a renewal resurrected a released lease').toMatchObject({
        owner: undefined,
        expiresAt: undefined,
      })
      expect(await store.acquire('net-a', 'beta', at(600), 3000)).toMatchObject({ fence: 2 })
    })

    it('still renews an expired term nobody took', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      expect(await store.renew(grant, at(5000), 3000)).toBe(true)
      expect((await store.get('net-a'))?.expiresAt).toEqual(at(8000))
    })

    it('never shortens the lease with a late, older stamp', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.renew(grant, at(2000), 3000)
      expect(await store.renew(grant, at(1000), 3000)).toBe(true)
      expect(await store.list(), 'a late renewal moved the expiry back').toEqual([
        { name: 'net-a', owner: 'alpha', fence: 1, expiresAt: at(5000), renewedAt: at(2000) },
      ])
    })

    it('succeeds when the same millisecond changes nothing', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      expect(await store.renew(grant, t0, 3000)).toBe(true)
      expect(await store.renew(grant, t0, 3000)).toBe(true)
    })
  })
}

function releaseCases(makeStore: MakeStore): void {
  describe('release', () => {
    it('frees the holder’s lease so anyone can take it at once', async () => {
      const store = await makeStore()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.release(grant)
      expect(await store.list()).toEqual([
        { name: 'net-a', owner: undefined, fence: 1, expiresAt: undefined, renewedAt: t0 },
      ])
      expect(
        await store.acquire('net-a', 'beta', at(1), 3000),
        'a released lease still blocked',
      ).toMatchObject({
        fence: 2,
      })
    })

    it('is a no-op for an absent lease and for one already released', async () => {
      const store = await makeStore()
      await expect(store.release({ name: 'net-a', owner: 'alpha', token: 'x' })).resolves.toBeUndefined()
      const grant = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.release(grant)
      await expect(store.release(grant), 'a resent release failed').resolves.toBeUndefined()
      expect(await store.list(), 'release of an absent lease created one').toHaveLength(1)
    })

    it('of an earlier term leaves the same owner’s newer term held (a late or resent release)', async () => {
      const store = await makeStore()
      const old = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      const newer = await granted(store.acquire('net-a', 'alpha', at(100), 3000))
      await expect(store.release(old)).resolves.toBeUndefined()
      expect(await store.get('net-a'), 'a stale release ended the owner’s next term').toMatchObject({
        owner: 'alpha',
        fence: newer.fence,
        expiresAt: at(3100),
      })
      expect(
        await store.renew(newer, at(200), 3000),
        'the newer term lost its lease to a stale release',
      ).toBe(true)
    })

    it('of a term released and re-acquired since changes nothing', async () => {
      const store = await makeStore()
      const old = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.release(old)
      const newer = await granted(store.acquire('net-a', 'alpha', at(100), 3000))
      await store.release(old)
      expect(await store.get('net-a'), 'a resent release ended the next term').toMatchObject({
        owner: 'alpha',
        fence: newer.fence,
      })
    })

    it('rejects a holder that overran with LeaseLostError and the successor keeps the lease', async () => {
      const store = await makeStore()
      const old = await granted(store.acquire('net-a', 'alpha', t0, 3000))
      await store.acquire('net-a', 'beta', at(3500), 3000)
      const error = await store.release(old).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(LeaseLostError)
      expect(error).toMatchObject({
        name: 'LeaseLostError',
        code: 'LEASE_LOST',
        lease: 'net-a',
        owner: 'alpha',
        holder: 'beta',
      })
      expect(await store.get('net-a'), 'a stale release removed the successor').toMatchObject({
        owner: 'beta',
        fence: 2,
      })
    })
  })
}

function concurrencyCases(makeStore: MakeStore, options: ConformanceOptions): void {
  describe('concurrency', () => {
    it('elects exactly one of 8 concurrent candidates for a fresh lease, round after round', async () => {
      const store = await makeStore()
      for (let round = 0; round < 10; round++) {
        const name = `fresh-${round}`
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.acquire(name, `candidate-${i}`, t0, 3000)),
        )
        expect(answers.filter(Boolean), `round ${round}: not exactly one winner`).toHaveLength(1)
        expect(answers.find(Boolean)).toMatchObject({ fence: 1 })
      }
    })

    it('gives concurrent holders’ renewals and sequential terms distinct, growing fences', async () => {
      const store = await makeStore()
      const fences: number[] = []
      for (let round = 0; round < 10; round++) {
        const now = at(round * 1000)
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) => store.acquire('net-a', `r${round}-c${i}`, now, 1000)),
        )
        const winner = answers.find(Boolean)
        if (!winner) throw new Error(`round ${round}: nobody won an expired lease`)
        await Promise.all([store.renew(winner, now, 1000), store.renew(winner, now, 1000)])
        fences.push(winner.fence)
      }
      expect(fences, 'a later term’s fence was not greater').toEqual([...fences].sort((a, b) => a - b))
      expect(new Set(fences).size, 'two rounds shared a fence').toBe(fences.length)
    })

    it.skipIf(options.expiredTakeoverRaceUnsupported !== undefined)(
      `elects exactly one of 8 concurrent candidates taking over an expired lease${
        options.expiredTakeoverRaceUnsupported ? ` (skipped: ${options.expiredTakeoverRaceUnsupported})` : ''
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
          expect(answers.find(Boolean)).toMatchObject({ fence: round + 2 })
        }
      },
    )
  })
}

function badCallCases(makeStore: MakeStore): void {
  describe('bad calls', () => {
    it('rejects an already-aborted signal and changes nothing', async () => {
      const store = await makeStore()
      const signal = AbortSignal.abort(new Error('stopping'))
      const grant = await granted(store.acquire('held', 'alpha', t0, 3000))
      for (const call of [
        () => store.acquire('net-a', 'alpha', t0, 3000, { signal }),
        () => store.renew(grant, at(1000), 3000, { signal }),
        () => store.release(grant, { signal }),
        () => store.list({ signal }),
        () => store.get('held', { signal }),
      ]) {
        await expect(call()).rejects.toMatchObject({ name: 'LeaseStoreError', code: 'LEASE_CALL_ABORTED' })
      }
      expect(await store.list(), 'an aborted call wrote anyway').toEqual([
        { name: 'held', owner: 'alpha', fence: 1, expiresAt: at(3000), renewedAt: t0 },
      ])
    })

    it.each([
      ['a blank name', '  ', 'alpha', t0, 3000, /lease name/],
      ['an absurdly long name', 'n'.repeat(1000), 'alpha', t0, 3000, /lease name/],
      ['a blank owner', 'net-a', '', t0, 3000, /owner/],
      ['an invalid date', 'net-a', 'alpha', new Date('nope'), 3000, /now must be a valid Date/],
      ['a ttl under 1 ms', 'net-a', 'alpha', t0, 0.5, /ttlMs/],
      ['a ttl that is not finite', 'net-a', 'alpha', t0, Number.POSITIVE_INFINITY, /ttlMs/],
      ['a ttl that is NaN', 'net-a', 'alpha', t0, Number.NaN, /ttlMs/],
    ] as const)(
      'rejects %s with a clear error and writes nothing',
      async (_what, name, owner, now, ttl, message) => {
        const store = await makeStore()
        for (const call of [
          () => store.acquire(name, owner, now, ttl),
          () => store.renew({ name, owner, token: 'a-token' }, now, ttl),
        ]) {
          const error = await call().catch((e: unknown) => e)
          expect(error).toBeInstanceOf(LeaseStoreError)
          expect(error).toMatchObject({ code: 'LEASE_INVALID_ARGUMENT' })
          expect((error as Error).message).toMatch(message)
        }
        expect(await store.list(), 'a rejected call wrote a lease').toEqual([])
      },
    )

    it('refuses a grant without its token, naming the lease', async () => {
      const store = await makeStore()
      const error = await store.release({ name: 'net-a', owner: 'alpha', token: '' }).catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'LeaseStoreError', code: 'LEASE_INVALID_ARGUMENT' })
      expect((error as Error).message).toMatch(/lease "net-a".*token/)
      await expect(store.acquire('net-a', 'alpha', t0, 3000, { token: '' })).rejects.toThrow(/token/)
    })

    it('names the lease in an argument error', async () => {
      const store = await makeStore()
      await expect(store.acquire('net-a', 'alpha', t0, -1)).rejects.toThrow(/lease "net-a".*ttlMs/)
      await expect(store.release({ name: 'net-a', owner: ' ', token: 'x' })).rejects.toThrow(
        /lease "net-a".*owner/,
      )
    })
  })
}

/**
 * A lease document another program wrote badly (store.ts, acquire): shown `corrupt`, never thrown; an
 * unusable expiry is free (a term that cannot be proven held is not held); an unusable fence elects
 * nobody until it is fixed, and the first acquire after the fix does.
 */
function malformedLeaseCases(makeStore: MakeStore, writeRaw: ConformanceOptions['writeRaw']): void {
  const skipped = writeRaw === undefined
  const title = (what: string) =>
    `${what}${skipped ? ' (skipped: this store cannot hold a malformed lease; no writeRaw given)' : ''}`
  const damaged = async (fields: Record<string, unknown>) => {
    const store = await makeStore()
    await granted(store.acquire('net-a', 'alpha', t0, 3000))
    await writeRaw!(store, 'net-a', fields)
    return store
  }
  describe('malformed leases', () => {
    it.skipIf(skipped)(title('lists a lease whose expiry is not a date as corrupt and free'), async () => {
      const store = await damaged({ expiresAt: 'tomorrow' })
      const shown = { name: 'net-a', owner: 'alpha', fence: 1, expiresAt: undefined, renewedAt: t0 }
      const listed = await store.list()
      expect(listed, 'a malformed lease was not shown as corrupt').toEqual([
        { ...shown, corrupt: expect.stringContaining('expiresAt') },
      ])
      expect(await store.get('net-a')).toEqual(listed[0])
    })

    it.skipIf(skipped).each([
      ['not a date', 'tomorrow'],
      ['missing', undefined],
    ])(title('lets anyone take over a lease whose expiry is %s, with the next fence'), async (_, value) => {
      const store = await damaged({ expiresAt: value })
      const grant = await granted(
        store.acquire('net-a', 'beta', at(1000), 3000),
        'a lease that cannot be proven held blocked its net',
      )
      expect(grant).toMatchObject({ owner: 'beta', fence: 2, expiresAt: at(4000), previousHolder: 'alpha' })
      expect(await store.get('net-a'), 'the new term did not write a valid expiry').toEqual({
        name: 'net-a',
        owner: 'beta',
        fence: 2,
        expiresAt: at(4000),
        renewedAt: at(1000),
      })
    })

    it.skipIf(skipped).each([
      ['not a number', 'seven'],
      ['missing', undefined],
    ])(title('elects nobody on a lease whose fence is %s, until it is fixed'), async (_, value) => {
      const store = await damaged({ fence: value })
      for (const owner of ['alpha', 'beta'])
        expect(
          await store.acquire('net-a', owner, at(5000), 3000),
          `${owner} got a fence it cannot prove`,
        ).toBe(false)
      expect(await store.get('net-a')).toMatchObject({ fence: 0, corrupt: expect.stringContaining('fence') })
      await writeRaw!(store, 'net-a', { fence: 7 })
      const grant = await granted(
        store.acquire('net-a', 'beta', at(5000), 3000),
        'a fixed lease stayed unelectable',
      )
      expect(grant).toMatchObject({ owner: 'beta', fence: 8 })
      expect(await store.get('net-a')).not.toHaveProperty('corrupt')
    })
  })
}

/** expiries' cases (an optional method: skipped, saying so, for a store without it). */
function expiryCases(makeStore: MakeStore): void {
  describe('expiries', () => {
    it('reads a standing term’s expiry, expired or not, and none for absent and released leases', async (ctx) => {
      const store = await makeStore()
      if (!store.expiries)
        return ctx.skip('this store has no expiries(): its vacancy watch cannot tell orphans')
      await granted(store.acquire('held', 'a', t0, 5000))
      await granted(store.acquire('expired', 'a', t0, 1000))
      await store.release(await granted(store.acquire('released', 'a', t0, 5000)))
      const read = await store.expiries(['absent', 'held', 'expired', 'released', 'held'])
      expect(read, 'expiries() disagrees with the terms standing').toEqual([
        { name: 'absent', expiresAt: undefined },
        { name: 'held', expiresAt: at(5000) },
        { name: 'expired', expiresAt: at(1000) },
        { name: 'released', expiresAt: undefined },
      ])
      expect(await store.expiries([])).toEqual([])
      const notArray = await Reflect.apply(store.expiries, store, ['held']).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(notArray, 'a name that is not in an array was read').toBeInstanceOf(LeaseStoreError)
      expect(String(notArray)).toContain('names must be an array')
    })
  })
}

/** vacant's cases (an optional method: skipped, saying so, for a store without it). */
function vacancyCases(makeStore: MakeStore): void {
  const withVacant = (skip: (note: string) => void) =>
    storeWith(makeStore, ['vacant'], 'a worker on it tries every lease it does not hold', skip)
  describe('vacant', () => {
    it('names absent, released and expired leases, not held ones, in the order given, each once', async (ctx) => {
      const store = await withVacant((note) => ctx.skip(note))
      await granted(store.acquire('held', 'a', t0, 5000))
      await granted(store.acquire('expired', 'a', t0, 1000))
      await store.release(await granted(store.acquire('released', 'a', t0, 5000)))
      const names = ['absent', 'held', 'expired', 'released', 'absent']
      expect(await store.vacant(names, at(1000)), 'vacant() disagrees with what acquire would find').toEqual([
        'absent',
        'expired',
        'released',
      ])
      expect(await store.vacant(names, at(5000)), 'a lease was not vacant at its expiry instant').toEqual([
        'absent',
        'held',
        'expired',
        'released',
      ])
      expect(await store.vacant([], t0)).toEqual([])
    })

    it('refuses names that are not an array of lease names, and a bad instant, naming what was expected', async (ctx) => {
      const store = await withVacant((note) => ctx.skip(note))
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => undefined,
          (e: unknown) => e,
        )
      // A caller without types (plain JavaScript) can pass anything: the store must still refuse it.
      const notArray = await refusal(Reflect.apply(store.vacant, store, ['a', t0]))
      expect(notArray).toBeInstanceOf(LeaseStoreError)
      expect(String(notArray)).toContain('names must be an array')
      expect(String(await refusal(store.vacant([' '], t0)))).toContain(
        'lease name must be a non-blank string',
      )
      expect(String(await refusal(store.vacant(['a'], new Date(Number.NaN))))).toContain(
        'now must be a valid Date',
      )
    })
  })
}
