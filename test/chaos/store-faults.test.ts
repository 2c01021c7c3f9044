/**
 * Chaos between the workers and the store: the proxies blackhole every replica or only the holder, add
 * latency, reset connections and lose answers (the server process's own failures are in
 * server-faults.test.ts, a file of its own so the two run side by side). No worker is ever restarted:
 * every recovery is the workers' own.
 */
import { describe, expect, it } from 'vitest'
import { mono, owners, RECOVERY_BOUND, RETRY, SLACK, sleep, TTL } from './cluster.js'
import { chaosEnvironment, runScenario } from './scenario.js'

const { env, results } = chaosEnvironment()

describe('the store becomes unreachable or slow', () => {
  it('a store blackholed for every replica for 2·ttl elects nobody after the hold, and a holder is back soon after it heals', async () => {
    await runScenario(
      'store-blackhole-all',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        for (let trial = 0; trial < 3; trial++) {
          await cluster.waitForHolder()
          await sleep(Math.floor(Math.random() * RETRY))
          await Promise.all(cluster.workers.map((w) => w.proxy.setMode({ kind: 'blackhole' })))
          const at = mono()
          await sleep(2 * TTL)
          const end = mono()
          await Promise.all(cluster.workers.map((w) => w.proxy.setMode({ kind: 'pass' })))
          cluster.fault({
            kind: `blackhole all ${2 * TTL} ms`,
            start: at,
            end,
            unreachable: owners(cluster.workers),
          })
          run.takeovers.push({ from: end })
          run.trials++
          await cluster.waitForHolder({ after: end, timeoutMs: 30_000 })
        }
      },
      { takeoverBoundMs: RECOVERY_BOUND },
    )
  })

  it('a holder cut off from the store steps down before its lease expires, and another worker takes over', async () => {
    await runScenario(
      'holder-cut-off',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        for (let trial = 0; trial < 4; trial++) {
          const holder = await cluster.waitForHolder()
          await sleep(Math.floor(Math.random() * RETRY))
          await holder.proxy.setMode({ kind: 'blackhole' })
          const at = mono()
          run.takeovers.push({ from: at, exclude: holder.owner() })
          await cluster.waitForHolder({ after: at, exclude: [holder], timeoutMs: 20_000 })
          await sleep(Math.max(0, at + 2 * TTL - mono()))
          const end = mono()
          await holder.proxy.setMode({ kind: 'pass' })
          cluster.fault({
            kind: `blackhole holder ${Math.round(end - at)} ms`,
            start: at,
            end,
            unreachable: [holder.owner()!],
          })
          run.trials++
          const ended = holder.proc.lines.find((l) => l.event === 'term-end' && Number(l.mono) > at)
          expect(ended?.reason, 'the cut-off holder’s term did not end by stepping down').toBe('stepped-down')
        }
      },
      { takeoverBoundMs: TTL + 1.2 * RETRY + SLACK },
    )
  })

  it('added latency under ttl/3 keeps the holder; at ttl/3, where no call is answered within its bound, the holder steps down, fail-closed, and recovers once it heals', async () => {
    const kept: string[] = []
    await runScenario('store-latency', env, results, async (run) => {
      const { cluster } = run
      for (let i = 0; i < 3; i++) await cluster.start()
      for (const delay of [TTL / 12, TTL / 6, TTL / 4, TTL / 3]) {
        const holder = await cluster.waitForHolder()
        await Promise.all(cluster.workers.map((w) => w.proxy.setMode({ kind: 'delay', ms: delay })))
        const at = mono()
        await sleep(2 * TTL)
        const end = mono()
        await Promise.all(cluster.workers.map((w) => w.proxy.setMode({ kind: 'pass' })))
        const lostTerm = holder.proc.lines.some((l) => l.event === 'term-end' && Number(l.mono) > at)
        cluster.fault({
          kind: `latency +${delay} ms for ${2 * TTL} ms`,
          start: at,
          end,
          // At ttl/3 no call can be answered within its ttl/3 bound: the store is unreachable in effect.
          ...(delay >= TTL / 3 ? { unreachable: owners(cluster.workers) } : {}),
        })
        kept.push(`+${delay} ms: ${lostTerm ? 'term ended' : 'holder kept its term'}`)
        if (delay < TTL / 3) {
          // Renewals go out every ttl/3 from the previous send, so a round trip under ttl/3 proves each one.
          expect(lostTerm, `a ${delay} ms round-trip delay (under ttl/3) cost the holder its term`).toBe(
            false,
          )
        } else {
          expect(
            lostTerm,
            `at +${delay} ms no renewal can be proven in time, yet the holder kept its term`,
          ).toBe(true)
        }
        run.trials++
      }
      await cluster.waitForHolder({ timeoutMs: 30_000 })
      run.notes = kept.join('; ')
    })
  })

  it('reset connections and lost answers cost at most a term, never an overlap', async () => {
    await runScenario('store-reset-and-lost-answers', env, results, async (run) => {
      const { cluster } = run
      for (let i = 0; i < 3; i++) await cluster.start()
      for (let trial = 0; trial < 3; trial++) {
        const holder = await cluster.waitForHolder()
        await sleep(Math.floor(Math.random() * RETRY))
        const at = mono()
        await holder.proxy.setMode({ kind: 'reset' })
        await sleep(200)
        await holder.proxy.setMode({ kind: 'pass' })
        cluster.fault({ kind: 'reset holder connections (200 ms of RST)', start: at, end: mono() })
        await sleep(TTL / 3)
        const dropAt = mono()
        holder.proxy.dropNextResponse()
        cluster.fault({ kind: 'drop the holder’s next answer', start: dropAt, end: dropAt })
        await sleep(TTL)
        run.trials++
        await cluster.waitForHolder({ timeoutMs: 20_000 })
      }
      run.notes = `answers dropped: ${cluster.workers.map((w) => w.proxy.stats().dropped).join('+')}`
    })
  })
})
