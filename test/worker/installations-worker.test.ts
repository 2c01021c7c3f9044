/**
 * One App, several installations, on a real worker: the sandbox serves two installations (each its own
 * account's repositories, tokens and budget), the worker acts as both through GITHUB_INSTALLATION_IDS, and a
 * per-installation net campaigns per installation — its own lease and ledger slots `<net>:<installation>`,
 * its own token (each pass sees only its installation's repositories), its runs naming the installation —
 * on both stores (in memory, read through /status; and the test Mongo, read directly). An installation
 * whose budget is driven under the reserve has its slots recorded `deferred`, counted in the metrics, while
 * the other installation's passes run on.
 */
import { Writable } from 'node:stream'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defineLease, defineNet, type PassContext } from '../../src/index.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { createLogger } from '../../src/observe/logger.js'
import { createWorker, type Worker } from '../../src/worker/worker.js'
import { mongoServer, type TestDatabase, useTestDatabase } from '../support/mongo.js'

const LEASE = defineLease('repo-lister', 'lists its installation’s repositories')
const GLOBAL_LEASE = defineLease('global-tick', 'a global net')

interface Seen {
  installation: number | undefined
  repos: string[]
}

function nets(seen: Seen[], globalSeen: (number | undefined)[]) {
  const lister = defineNet({
    name: 'repo-lister',
    lease: LEASE.name,
    scope: 'installation',
    schedule: '* * * * * *',
    description: 'lists the installation’s repositories',
    options: {},
    setup: () => undefined,
    term: () => async (ctx: PassContext) => {
      const answer = await ctx.forge.request<{ repositories: { full_name: string }[] }>(
        'GET /installation/repositories',
        { request: { signal: ctx.signal } },
      )
      seen.push({ installation: ctx.installation, repos: answer.data.repositories.map((r) => r.full_name) })
    },
  })
  const global = defineNet({
    name: 'global-tick',
    lease: GLOBAL_LEASE.name,
    schedule: '* * * * * *',
    description: 'runs once, globally',
    options: {},
    setup: () => undefined,
    term: () => async (ctx: PassContext) => void globalSeen.push(ctx.installation),
  })
  return [lister, global]
}

const fixture = {
  repos: [
    { owner: 'org-a', name: 'one', id: 601 },
    { owner: 'org-a', name: 'two', id: 602 },
    { owner: 'org-b', name: 'three', id: 603 },
  ],
}

let sandbox: SandboxForge
let worker: Worker | undefined
afterEach(async () => {
  await worker?.stop()
  worker = undefined
  await sandbox?.close()
})

async function startSandbox() {
  sandbox = await startSandboxForge({
    fixture,
    installations: [
      { id: 101, account: 'org-a' },
      { id: 202, account: 'org-b' },
    ],
  })
}

function appEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LEASECRON_FORGE: 'github',
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_INSTALLATION_IDS: '101,202',
    GITHUB_API_URL: sandbox.url,
    LEASECRON_NET_REPO_LISTER_TTL_MS: '3000',
    LEASECRON_NET_GLOBAL_TICK_TTL_MS: '3000',
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...extra,
  }
}

async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined, ms = 20_000) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const value = await read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`)
}

const ADMIN_TOKEN = 'installations-admin-token-0123456789'

interface StatusNet {
  name: string
  leaseName: string
  holder: { owner: string } | null
  runs: { outcome: string; error: string | null }[] | null
}

async function statusNets(): Promise<StatusNet[]> {
  const answer = await fetch(`http://127.0.0.1:${worker!.port}/status`)
  return ((await answer.json()) as { nets: StatusNet[] }).nets
}

describe('one worker acting as two installations', () => {
  it('campaigns per installation in memory: <net>:<installation> leases and slots, each pass with its own token', async () => {
    await startSandbox()
    const seen: Seen[] = []
    const globalSeen: (number | undefined)[] = []
    const defined = nets(seen, globalSeen)
    worker = createWorker({ nets: defined, leases: [LEASE, GLOBAL_LEASE], env: appEnv() })
    await worker.start()
    await until('a pass of each installation', () =>
      seen.some((s) => s.installation === 101) && seen.some((s) => s.installation === 202) ? true : undefined,
    )
    for (const s of seen)
      expect(s.repos, `installation ${s.installation} saw another account’s repositories`).toEqual(
        s.installation === 101 ? ['org-a/one', 'org-a/two'] : ['org-b/three'],
      )
    expect(globalSeen.length, 'the global net did not run').toBeGreaterThan(0)
    expect(new Set(globalSeen), 'a global net acts as the first installation').toEqual(new Set([101]))
    const shown = await until('both installations’ runs on /status', async () => {
      const listed = await statusNets()
      const ran = (name: string) => listed.find((n) => n.name === name)?.runs?.some((r) => r.outcome === 'ok')
      return ran('repo-lister:101') && ran('repo-lister:202') ? listed : undefined
    })
    expect(shown.map((n) => [n.name, n.leaseName]).sort()).toEqual([
      ['global-tick', 'global-tick'],
      ['repo-lister:101', 'repo-lister:101'],
      ['repo-lister:202', 'repo-lister:202'],
    ])
    const stats = sandbox.stats()
    expect(JSON.stringify(stats), 'each installation minted its own token').toContain('"installation":"202"')
  })

  describe('on the test Mongo', () => {
    let database: TestDatabase
    beforeAll(async () => {
      database = await useTestDatabase('installations-worker')
    })

    it('stores each installation’s lease and runs apart, every run naming its installation', async () => {
      await startSandbox()
      const seen: Seen[] = []
      const env = appEnv({ MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
      worker = createWorker({ nets: nets(seen, []), leases: [LEASE, GLOBAL_LEASE], env })
      await worker.start()
      const ledger = new MongoRunLedger(database.db)
      const finished = async (net: string) => (await ledger.history(net, 20)).find((r) => r.outcome === 'ok')
      const [a, b] = await until('a finished run of each installation', async () => {
        const runs = [await finished('repo-lister:101'), await finished('repo-lister:202')]
        return runs.every((r) => r !== undefined) ? runs : undefined
      })
      expect(a).toMatchObject({ net: 'repo-lister:101', installation: 101, outcome: 'ok' })
      expect(b).toMatchObject({ net: 'repo-lister:202', installation: 202, outcome: 'ok' })
      const leases = await database.db.collection('leases').find({}).toArray()
      const ids = leases.map((l) => String(l._id))
      expect(ids).toEqual(expect.arrayContaining(['repo-lister:101', 'repo-lister:202', 'global-tick']))
      const stored = await database.db.collection('net_runs').findOne({ net: 'repo-lister:202' })
      expect(stored?.installation, 'the stored run document names its installation').toBe(202)
    })

    it('records the slots of an installation whose budget is down to the reserve deferred, and runs the other’s', async () => {
      await startSandbox()
      await sandbox.admin.setInstallationRateLimit(202, { limit: 5000, remaining: 40 })
      const seen: Seen[] = []
      const env = appEnv({
        MONGO_URI: mongoServer().url,
        MONGO_DB: `${database.db.databaseName}_deferral`,
        LEASECRON_FORGE_RESERVE: '500',
      })
      worker = createWorker({ nets: nets(seen, []), leases: [LEASE, GLOBAL_LEASE], env })
      await worker.start()
      const ledger = new MongoRunLedger(database.client.db(env.MONGO_DB!))
      const deferred = await until('a deferred slot of installation 202', async () =>
        (await ledger.history('repo-lister:202', 50)).find((r) => r.outcome === 'deferred'),
      )
      expect(deferred).toMatchObject({ installation: 202, attempts: 0 })
      expect(deferred.error).toMatch(
        /points left, at or under the reserve of 500 \(LEASECRON_FORGE_RESERVE\)/,
      )
      const b = seen.filter((s) => s.installation === 202).length
      const okA = await until('installation 101 running on', async () => {
        const runs = await ledger.history('repo-lister:101', 50)
        return runs.filter((r) => r.outcome === 'ok').length >= 3 ? runs : undefined
      })
      expect(
        okA.every((r) => r.outcome !== 'deferred'),
        'the other installation was deferred too',
      ).toBe(true)
      expect(seen.filter((s) => s.installation === 202).length, 'a deferred installation kept spending').toBe(
        b,
      )
      expect(b, 'the first pass learns the budget: it runs').toBeLessThanOrEqual(1)
      const metrics = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text()
      expect(metrics).toMatch(
        /leasecron_skipped_ticks_total\{net="repo-lister:202",reason="deferred"\} [1-9]/,
      )
      expect(metrics).toMatch(/leasecron_slots_total\{net="repo-lister:202",outcome="deferred"\} [1-9]/)
      const left = (id: number) =>
        Number(
          new RegExp(`forge_ratelimit_remaining\\{[^}]*installation="${id}"[^}]*\\} (\\d+)`).exec(
            metrics,
          )?.[1],
        )
      expect(left(202), 'the rate-limit gauge is not labelled by installation').toBeLessThanOrEqual(40)
      expect(left(101), 'one installation’s budget overwrote another’s gauge').toBeGreaterThan(4_900)
      await database.client.db(env.MONGO_DB!).dropDatabase()
    })
  })

  it('under `all`, keeps the campaigns of a listing that comes back empty, and says so', async () => {
    await startSandbox()
    const seen: Seen[] = []
    const lines: { msg: string; err?: { message: string } }[] = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    })
    const logger = createLogger({ level: 'warn', destination })
    const env = appEnv({ GITHUB_INSTALLATION_IDS: 'all', LEASECRON_INSTALLATIONS_REFRESH: '1s' })
    worker = createWorker({ nets: nets(seen, []), leases: [LEASE, GLOBAL_LEASE], env, logger })
    const matching = (text: string) => lines.filter((l) => l.msg.includes(text))
    await worker.start()
    await until('passes of both installations', () =>
      seen.some((s) => s.installation === 101) && seen.some((s) => s.installation === 202) ? true : undefined,
    )
    sandbox.installations.suspend(101, true)
    sandbox.installations.suspend(202, true)
    await until('two refreshes finding the listing empty', () =>
      matching('could not list the App’s installations').length >= 2 ? true : undefined,
    )
    const warned = matching('could not list the App’s installations')[0]
    expect(warned?.err?.message).toContain('listed no installation')
    const held = (await statusNets()).filter((n) => n.name.startsWith('repo-lister:') && n.holder !== null)
    expect(
      held.map((n) => n.name).sort(),
      'one empty listing stopped the campaigns of every installation',
    ).toEqual(['repo-lister:101', 'repo-lister:202'])
  })

  describe('with GITHUB_INSTALLATION_IDS=all and the fair share on', () => {
    let database: TestDatabase
    beforeAll(async () => {
      database = await useTestDatabase('installations-fair-share')
    })

    it('campaigns for the installations added after the start, and stops counting one removed', async () => {
      sandbox = await startSandboxForge({ fixture, installations: [{ id: 101, account: 'org-a' }] })
      const seen: Seen[] = []
      const env = appEnv({
        GITHUB_INSTALLATION_IDS: 'all',
        LEASECRON_INSTALLATIONS_REFRESH: '1s',
        LEASECRON_FAIR_SHARE: 'on',
        MONGO_URI: mongoServer().url,
        MONGO_DB: database.db.databaseName,
      })
      worker = createWorker({ nets: nets(seen, []), leases: [LEASE, GLOBAL_LEASE], env })
      await worker.start()
      const ran = (id: number) => seen.filter((s) => s.installation === id).length
      const shareLeases = async () => {
        const text = await (await fetch(`http://127.0.0.1:${worker!.port}/metrics`)).text()
        return Number(/^leasecron_fair_share_leases (\S+)$/m.exec(text)?.[1])
      }
      await until('a pass of the installation listed at the start', () => (ran(101) ? true : undefined))
      sandbox.installations.add({ id: 202, account: 'org-b' })
      sandbox.installations.add({ id: 303, account: 'org-b' })
      await until('passes of the installations added while it runs (fair share on, one replica)', () =>
        ran(202) && ran(303) ? true : undefined,
      )
      // One replica: its share is every lease — the global net and three installations' listers.
      await until('the share counting the added installations’ leases', async () =>
        (await shareLeases()) === 4 ? true : undefined,
      )
      sandbox.installations.remove(202)
      await until('the share no longer counting the removed installation’s lease', async () =>
        (await shareLeases()) === 3 ? true : undefined,
      )
      await database.client.db(env.MONGO_DB!).dropDatabase()
    })
  })

  describe('with GITHUB_INSTALLATION_IDS=all', () => {
    let database: TestDatabase
    beforeAll(async () => {
      database = await useTestDatabase('installations-all')
    })

    it('acts as the discovered installations, starts a new one and releases one that disappears', async () => {
      await startSandbox()
      const seen: Seen[] = []
      const env = appEnv({
        GITHUB_INSTALLATION_IDS: 'all',
        LEASECRON_INSTALLATIONS_REFRESH: '1s',
        LEASECRON_ADMIN_TOKEN: ADMIN_TOKEN,
        MONGO_URI: mongoServer().url,
        MONGO_DB: database.db.databaseName,
      })
      worker = createWorker({ nets: nets(seen, []), leases: [LEASE, GLOBAL_LEASE], env })
      await worker.start()
      const ran = (id: number) => seen.filter((s) => s.installation === id).length
      await until('passes of both discovered installations', () => (ran(101) && ran(202) ? true : undefined))
      const listed = async () => (await statusNets()).map((n) => n.name).sort()
      expect(await listed(), 'under `all` /status left out the nets the worker runs').toEqual([
        'global-tick',
        'repo-lister:101',
        'repo-lister:202',
      ])
      const requested = await fetch(`http://127.0.0.1:${worker.port}/nets/repo-lister:202/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
      expect(requested.status, 'the admin API refused a discovered installation’s net the page lists').toBe(
        202,
      )
      sandbox.installations.remove(202)
      sandbox.installations.add({ id: 303, account: 'org-b' })
      await until('a pass of the installation added', () => (ran(303) > 0 ? true : undefined))
      await until('/status listing the installations discovered now', async () =>
        (await listed()).join() === 'global-tick,repo-lister:101,repo-lister:303' ? true : undefined,
      )
      const gone = await fetch(`http://127.0.0.1:${worker.port}/nets/repo-lister:202/pause`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
      expect(
        gone.status,
        'the admin API paused a net of an installation the App no longer lists, which no replica runs',
      ).toBe(404)
      expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('unknown-net')
      const leases = database.db.collection<{ _id: string; token: string | null }>('leases')
      // Released once its term's pass in flight has ended: generous, since a pass whose installation is gone
      // meets the forge's refusals, and on a loaded machine (the whole suite on Node 24) once took over 20 s.
      await until(
        'the gone installation’s lease released',
        async () => {
          const lease = await leases.findOne({ _id: 'repo-lister:202' })
          return lease?.token === null ? true : undefined
        },
        90_000,
      )
      const after = ran(202)
      // Slots go by every second: two more passes of the installation that stayed span slots in which
      // the gone one would have run, were it still scheduled.
      const stayed = ran(101)
      await until('two more passes of the installation that stayed', () =>
        ran(101) >= stayed + 2 ? true : undefined,
      )
      expect(ran(202), 'a gone installation’s slots were still scheduled').toBe(after)
      expect(ran(101), 'the installation that stayed stopped running').toBeGreaterThan(1)
      expect(seen.filter((s) => s.installation === 303).every((s) => s.repos.join() === 'org-b/three')).toBe(
        true,
      )
    }, 180_000)
  })
})
