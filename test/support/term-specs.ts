/**
 * The one builder of the term engine's specs for tests: what a net's passes share (PassSetting), a net's
 * campaign (runNetCampaign), a `once` pass and a backfill, each with the defaults a test does not care
 * about — memory store and ledger, owner `alpha`, a silent logger, the system clock, a forge that fails the
 * test when read — and the test's own overrides on top. A spec's shape changes in one place, here, not in
 * every test that builds one. Test support, not a test.
 */
import type { NetConfig } from '../../src/config/worker-config.js'
import { systemClock } from '../../src/lease/clock.js'
import { MemoryStore } from '../../src/lease/memory-store.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { MemoryRunLedger } from '../../src/runs/memory-run-ledger.js'
import type { BackfillSpec } from '../../src/term/backfill.js'
import type { NetCampaignOptions } from '../../src/term/net-runner.js'
import type { OnceSpec } from '../../src/term/one-slot.js'
import type { PassForge, PassSetting } from '../../src/term/slot-pass.js'

/** The forge of nets that never use it: a pass that reads it fails, saying so. */
export const noForge: PassForge = {
  get octokit(): never {
    throw new Error('this test’s passes never talk to the forge, yet one asked for it')
  },
}

/** What every pass of `net` shares, with the tests' defaults under `overrides`. */
export function passSetting(net: NetConfig, overrides: Partial<PassSetting> = {}): PassSetting {
  return {
    net,
    owner: 'alpha',
    ledger: new MemoryRunLedger(),
    runHistory: 1000,
    forge: noForge,
    clock: systemClock,
    log: createLogger({ level: 'silent' }),
    ...overrides,
  }
}

/** A campaign for `net` until `overrides.signal` aborts (a signal that never does by default). */
export function campaignOptions(
  net: NetConfig,
  overrides: Partial<NetCampaignOptions> = {},
): NetCampaignOptions {
  return {
    ...passSetting(net, overrides),
    store: new MemoryStore(),
    resources: {},
    metrics: createWorkerMetrics(),
    signal: new AbortController().signal,
    ...overrides,
  }
}

/** The pass builder `once` and `backfill` take: the net's own term, built on the spec's logger. */
function netPass(net: NetConfig, setting: PassSetting): OnceSpec['pass'] {
  return async (term, stepDownAt) =>
    net.definition.term({}, { options: net.options, log: setting.log, signal: term, stepDownAt })
}

/** What `once` and `backfill` share: the setting, a lease store of their own, the net's pass, a signal. */
function oneTermParts(net: NetConfig, overrides: Partial<PassSetting>) {
  const setting = passSetting(net, overrides)
  const parts = {
    store: new MemoryStore(),
    pass: netPass(net, setting),
    signal: new AbortController().signal,
  }
  return { ...setting, ...parts }
}

/** One `once` pass of `net` for `slot`. */
export function onceSpec(net: NetConfig, slot: Date, overrides: Partial<OnceSpec> = {}): OnceSpec {
  return { ...oneTermParts(net, overrides), slot, ...overrides }
}

/** A backfill of `net` over `slots`. */
export function backfillSpec(
  net: NetConfig,
  slots: readonly Date[],
  overrides: Partial<BackfillSpec> = {},
): BackfillSpec {
  return { ...oneTermParts(net, overrides), slots, ...overrides }
}
