/**
 * Chaos in the Mongo server process: killed and restarted on the same port and data, paused and resumed.
 * No worker is ever restarted: every recovery is the workers' own.
 */
import { describe, expect, it } from 'vitest'
import { mono, owners, RECOVERY_BOUND, RETRY, sleep, TTL } from './cluster.js'
import { chaosEnvironment, runScenario } from './scenario.js'

const { env, results } = chaosEnvironment()

describe('the Mongo server process fails', () => {
  it('a Mongo server killed and restarted on the same port and data elects nobody while down and a holder soon after', async () => {
    await runScenario(
      'mongo-kill-restart',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        for (let trial = 0; trial < 3; trial++) {
          await cluster.waitForHolder()
          await sleep(Math.floor(Math.random() * RETRY))
          await env.mongo.kill()
          const at = mono()
          await sleep(2 * TTL)
          const end = mono()
          await env.mongo.restart()
          const up = mono()
          cluster.fault({
            kind: `Mongo SIGKILL, restarted after ${2 * TTL} ms`,
            start: at,
            // The server answers from the moment it listens again, before restart() has seen it ready:
            // the window of unreachability ends when the restart began.
            end,
            unreachable: owners(cluster.workers),
          })
          // A candidate can be elected as soon as the server listens, before restart() has seen it ready.
          run.takeovers.push({ from: end })
          run.trials++
          expect(up - end, 'FerretDB took too long to restart').toBeLessThan(15_000)
          await cluster.waitForHolder({ after: at, timeoutMs: 30_000 })
        }
      },
      { takeoverBoundMs: RECOVERY_BOUND },
    )
  })

  it('a Mongo server paused with SIGSTOP for 2·ttl elects nobody after the hold, and a holder is back soon after SIGCONT', async () => {
    await runScenario(
      'mongo-sigstop',
      env,
      results,
      async (run) => {
        const { cluster } = run
        for (let i = 0; i < 3; i++) await cluster.start()
        for (let trial = 0; trial < 3; trial++) {
          await cluster.waitForHolder()
          await sleep(Math.floor(Math.random() * RETRY))
          env.mongo.pause()
          const at = mono()
          await sleep(2 * TTL)
          const end = mono()
          env.mongo.resume()
          cluster.fault({
            kind: `Mongo SIGSTOP ${2 * TTL} ms`,
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
})
