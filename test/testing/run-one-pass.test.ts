/**
 * runOnePass (`leasecron/testing`) against the real sandbox forge, memory twins and a real lease store:
 * a pass runs once per slot in its lane and the ledger records it; a failing pass, a taken slot, a held
 * lease and an aborted pass come back as such; options take the net's defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineLease, defineNet, integerOption, MemoryRunLedger, MemoryStore } from '../../src/index.js'
import type { PassContext } from '../../src/nets/net.js'
import { startSandboxForge, type SandboxForge } from '../../src/sandbox.js'
import { runOnePass } from '../../src/testing.js'

const lease = defineLease('one-pass-test', 'elects the runOnePass test net')
const slot = new Date('2026-09-30T15:05:00.000Z')

/** A net whose pass lists the installation's repositories, or throws when told to. */
function listingNet(seen: PassContext[] = [], options = { LIMIT: integerOption(5, { min: 1, max: 100 }) }) {
  return defineNet({
    name: 'one-pass-test',
    lease: lease.name,
    schedule: '*/5 * * * *',
    description: 'lists repositories',
    options,
    setup: () => ({ opened: true }),
    term:
      (resources, { options: values }) =>
      async (context) => {
        seen.push(context)
        if (!resources.opened) throw new Error('the pass ran without its setup')
        await context.forge.request('GET /installation/repositories', { per_page: values.LIMIT })
        context.log.info({ limit: values.LIMIT }, 'listed')
      },
  })
}

let sandbox: SandboxForge
beforeAll(async () => {
  sandbox = await startSandboxForge({ generate: { repos: 2, pullsPerRepo: 1, issuesPerRepo: 0, seed: 4 } })
})
afterAll(async () => {
  await sandbox?.close()
})

describe('runOnePass', () => {
  it('runs the pass for the slot through setup and term, and the ledger records it with its requests', async () => {
    const seen: PassContext[] = []
    const run = await runOnePass(listingNet(seen), { forge: sandbox, slot })
    expect(run.outcome).toBe('ran')
    expect(run.record).toMatchObject({ net: 'one-pass-test', slot, outcome: 'ok', fence: run.fence })
    expect(run.record?.requests, 'the pass’s request was not charged to its lane').toEqual({
      'one-pass-test': 1,
    })
    expect(seen.map((c) => ({ pass: c.pass, slot: c.slot }))).toEqual([{ pass: 1, slot }])
    expect(run.log.find((l) => l.msg === 'listed')).toMatchObject({
      level: 'info',
      limit: 5,
      net: 'one-pass-test',
    })
  })

  it('hands the pass the options given and the defaults of the others', async () => {
    const net = listingNet([], { LIMIT: integerOption(5, { min: 1, max: 100 }) })
    const run = await runOnePass(net, { forge: sandbox, slot, options: { LIMIT: 2 } })
    expect(run.log.find((l) => l.msg === 'listed')?.limit).toBe(2)
  })

  it('refuses a net whose option has no default when the test leaves it out, naming the option', async () => {
    const net = listingNet([], { LIMIT: integerOption(5, { min: 1, max: 100 }) })
    const team = z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined) context.addIssue({ code: 'custom', message: 'a team name' })
        return value ?? z.NEVER
      })
    const required = {
      ...net,
      options: { ...net.options, TEAM: { schema: team, expected: 'a team name', defaultText: '' } },
    }
    await expect(runOnePass(required, { forge: sandbox, slot })).rejects.toThrow(/option TEAM has no default/)
  })

  it('runs a slot once: a second pass on the same ledger finds it taken and runs nothing', async () => {
    const ledger = new MemoryRunLedger()
    const seen: PassContext[] = []
    expect((await runOnePass(listingNet(seen), { forge: sandbox, slot, ledger })).outcome).toBe('ran')
    expect((await runOnePass(listingNet(seen), { forge: sandbox, slot, ledger })).outcome).toBe('slot-taken')
    expect(seen, 'the taken slot ran again').toHaveLength(1)
  })

  it('reports a throwing pass as failed, with its error in the ledger', async () => {
    const net = defineNet({
      ...listingNet(),
      term: () => async () => Promise.reject(new Error('no such repo')),
    })
    const run = await runOnePass(net, { forge: sandbox, slot })
    expect(run.outcome).toBe('failed')
    expect(run.error).toBe('no such repo')
    expect(run.record).toMatchObject({ outcome: 'failed', error: 'Error: no such repo' })
    expect(run.log.find((l) => l.msg === 'pass failed')?.level).toBe('error')
  })

  it('runs the same attempts as the worker: a pass that fails once is retried under its one claim', async () => {
    let attempts = 0
    const net = defineNet({
      ...listingNet(),
      term: () => async () => {
        if (++attempts === 1) throw new Error('502 from the forge')
      },
    })
    const ledger = new MemoryRunLedger()
    const run = await runOnePass(net, {
      forge: sandbox,
      slot,
      ledger,
      attempts: { retries: 2, retryBackoffMs: 100 },
    })
    expect(run.outcome).toBe('ran')
    expect(run.record, 'the slot’s record does not show its two attempts').toMatchObject({
      outcome: 'ok',
      attempts: 2,
    })
    expect(attempts).toBe(2)
    expect(run.log.find((l) => l.msg.includes('retrying in 100 ms'))).toMatchObject({
      level: 'warn',
      attempt: 1,
    })
  })

  it('times out a pass that runs past its TIMEOUT, as `once` does, and reports it timed-out', async () => {
    const net = defineNet({
      ...listingNet(),
      term: () => async (context: PassContext) => {
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))
      },
    })
    const run = await runOnePass(net, { forge: sandbox, slot, attempts: { timeoutMs: 200 } })
    expect(run.outcome).toBe('timed-out')
    expect(run.error).toMatch(/ran past the net's TIMEOUT \(200ms\)/)
    expect(run.record).toMatchObject({ outcome: 'timed-out', attempts: 1 })
  })

  it('runs nothing while another owner holds the lease on the given store', async () => {
    const store = new MemoryStore()
    const now = new Date()
    expect(await store.acquire(lease.name, 'someone-else', now, 60_000)).not.toBe(false)
    const seen: PassContext[] = []
    const run = await runOnePass(listingNet(seen), { forge: sandbox, slot, store })
    expect(run).toMatchObject({ outcome: 'held', fence: null, record: undefined })
    expect(seen).toHaveLength(0)
  })

  it('records a pass its signal aborted as aborted', async () => {
    const stop = new AbortController()
    const net = defineNet({
      ...listingNet(),
      term: () => async (context: PassContext) => {
        const ended = new Promise((resolve) =>
          context.signal.addEventListener('abort', resolve, { once: true }),
        )
        stop.abort()
        await ended
      },
    })
    const run = await runOnePass(net, { forge: sandbox, slot, signal: stop.signal })
    expect(run.outcome).toBe('aborted')
    expect(run.record?.outcome).toBe('aborted')
  })
})
