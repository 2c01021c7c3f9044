/**
 * The custom net's own test, as you would write it in your repository: one pass of the net for one slot,
 * the way the worker runs it, against the sandbox forge (a local GitHub stand-in) — no App, no Mongo.
 */
import { startSandboxForge } from 'leasecron/sandbox'
import { runOnePass } from 'leasecron/testing'
import { afterAll, expect, test } from 'vitest'
import { stalePulls } from './worker.config.js'

const sandbox = await startSandboxForge({ fixture: { repos: [{ owner: 'acme', name: 'widgets' }] } })
afterAll(() => sandbox.close())

test('counts the open pull requests nobody updated for DAYS days', async () => {
  sandbox.store.addPull('acme', 'widgets')
  sandbox.store.addPull('acme', 'widgets')

  const today = await runOnePass(stalePulls, { forge: sandbox })
  expect(today.record).toMatchObject({ outcome: 'ok' })
  expect(today.log.find((l) => l.msg === 'stale pulls counted')).toMatchObject({ stale: 0, days: 14 })

  const inThreeWeeks = new Date(Date.now() + 21 * 24 * 3_600_000)
  const later = await runOnePass(stalePulls, {
    forge: sandbox,
    now: () => inThreeWeeks,
    options: { DAYS: 20 },
  })
  expect(later.log.find((l) => l.msg === 'stale pulls counted')).toMatchObject({ stale: 2, days: 20 })
})
