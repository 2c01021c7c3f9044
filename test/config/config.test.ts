import { describe, expect, it } from 'vitest'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { formatDuration } from '../../src/durations.js'
import { type LeaseDefinition, loadConfig, ownerId } from '../../src/index.js'
import { leasePacing } from '../../src/leases.js'
import { LEASES } from '../../src/nets.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'
import { checkSchedule, nextFireTime } from '../../src/schedule/schedule.js'
import { recordingNet, TEST_LEASES } from '../support/test-nets.js'

const { net } = recordingNet()
const load = (env: Record<string, string>) => loadConfig(env, [net], TEST_LEASES)
const issues = (env: Record<string, string>) => {
  const result = load(env)
  if (result.ok) throw new Error('expected the configuration to be rejected')
  return result.issues
}

describe('configuration from the environment', () => {
  it('runs on its embedded defaults with an empty environment', () => {
    const result = load({})
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.config).toMatchObject({
      mongo: undefined,
      port: 8080,
      logLevel: 'info',
      shutdownTimeoutMs: 25_000,
      forge: { kind: 'sandbox' },
    })
    expect(result.config.nets[0]).toMatchObject({
      enabled: true,
      schedule: '* * * * * *',
      intervalMs: 1000,
      pacing: { paceMs: 1000, ttlMs: 3000, retryMs: 1000 },
      options: { DEPTH: 3, WINDOW: 3_600_000 },
    })
  })

  it('reads every global and per-net variable', () => {
    const result = load({
      MONGO_URI: 'mongodb://127.0.0.1:27017',
      MONGO_DB: 'lc_test',
      LEASECRON_WORKER_ID: 'pod-a',
      PORT: '0',
      LOG_LEVEL: 'debug',
      LEASECRON_SHUTDOWN_TIMEOUT_MS: '1000',
      PUBLIC_URL: 'https://review.example/',
      LEASECRON_NET_TICK_NET_ENABLED: 'false',
      LEASECRON_NET_TICK_NET_SCHEDULE: '*/5 * * * *',
      LEASECRON_NET_TICK_NET_TTL_MS: '9000',
      LEASECRON_NET_TICK_NET_RETRY_MS: '2500',
      LEASECRON_NET_TICK_NET_DEPTH: '7',
      LEASECRON_NET_TICK_NET_WINDOW: '90s',
    })
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.config).toMatchObject({
      mongo: { uri: 'mongodb://127.0.0.1:27017', db: 'lc_test' },
      workerId: 'pod-a',
      port: 0,
      logLevel: 'debug',
      shutdownTimeoutMs: 1000,
      publicUrl: 'https://review.example',
    })
    expect(result.config.nets[0]).toMatchObject({
      enabled: false,
      schedule: '*/5 * * * *',
      intervalMs: 300_000,
      pacing: { paceMs: 60_000, ttlMs: 9000, retryMs: 2500 },
      options: { DEPTH: 7, WINDOW: 90_000 },
    })
  })

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '-1'],
    ['PORT', '0x10'],
    ['PORT', '70000'],
    ['LEASECRON_SHUTDOWN_TIMEOUT_MS', '10s'],
    ['LEASECRON_SHUTDOWN_TIMEOUT_MS', '-5'],
    ['LOG_LEVEL', 'loud'],
    ['MONGO_DB', 'bad name!'],
    ['LEASECRON_NET_TICK_NET_TTL_MS', '0'],
    ['LEASECRON_NET_TICK_NET_TTL_MS', '0x10'],
    ['LEASECRON_NET_TICK_NET_TTL_MS', '10s'],
    ['LEASECRON_NET_TICK_NET_TTL_MS', String(3 * 2 ** 31)],
    ['LEASECRON_NET_TICK_NET_RETRY_MS', 'soon'],
    ['LEASECRON_NET_TICK_NET_ENABLED', 'yes'],
    ['LEASECRON_NET_TICK_NET_DEPTH', '11'],
    ['LEASECRON_NET_TICK_NET_WINDOW', '90'],
    ['LEASECRON_NET_TICK_NET_SCHEDULE', '61 * * * *'],
    ['LEASECRON_NET_TICK_NET_SCHEDULE', '* * * * * * *'],
    ['LEASECRON_NET_TICK_NET_SCHEDULE', 'every minute'],
    ['LEASECRON_FORGE', 'gitlab'],
    ['PUBLIC_URL', 'not a url'],
  ])('rejects %s=%j naming the variable, what was expected and the value', (variable, value) => {
    const found = issues({ [variable]: value }).find((i) => i.variable === variable)
    expect(found, `${variable}=${value} was accepted`).toBeDefined()
    expect(found!.expected.length).toBeGreaterThan(5)
    expect(found!.value).toBe(value)
  })

  it('treats an empty variable as unset', () => {
    expect(load({ PORT: '', LOG_LEVEL: ' ', LEASECRON_NET_TICK_NET_SCHEDULE: '' }).ok).toBe(true)
  })

  it('names the cron field that is wrong and its range', () => {
    const [issue] = issues({ LEASECRON_NET_TICK_NET_SCHEDULE: '61 * * * *' })
    expect(issue!.expected).toMatch(/minute: 61 is out of range 0–59/)
    const [hour] = issues({ LEASECRON_NET_TICK_NET_SCHEDULE: '0 25 * * *' })
    expect(hour!.expected).toMatch(/hour: 25 is out of range 0–23/)
    const [seven] = issues({ LEASECRON_NET_TICK_NET_SCHEDULE: '* * * * * * *' })
    expect(seven!.expected).toMatch(/5 or 6 fields .*; it has 7 fields$/)
    const [one] = issues({ LEASECRON_NET_TICK_NET_SCHEDULE: 'hourly' })
    expect(one!.expected, 'a one-word schedule was told it has "1 fields"').toMatch(/; it has 1 field$/)
  })

  it('reports every invalid variable at once', () => {
    const found = issues({ PORT: 'x', LOG_LEVEL: 'y', LEASECRON_NET_TICK_NET_DEPTH: '0' }).map(
      (i) => i.variable,
    )
    expect(found).toEqual(['PORT', 'LOG_LEVEL', 'LEASECRON_NET_TICK_NET_DEPTH'])
  })

  it('refuses unknown LEASECRON_NET_ variables instead of ignoring a typo', () => {
    const found = issues({ LEASECRON_NET_TICK_NET_SCHEDUEL: '* * * * *', LEASECRON_NET_NOPE_ENABLED: 'true' })
    expect(found.map((i) => i.variable).sort()).toEqual([
      'LEASECRON_NET_NOPE_ENABLED',
      'LEASECRON_NET_TICK_NET_SCHEDUEL',
    ])
  })

  it('rejects a malformed MONGO_URI without echoing it', () => {
    const [issue] = issues({ MONGO_URI: 'mongodb://user:s3cret@' })
    expect(issue?.variable).toBe('MONGO_URI')
    expect(JSON.stringify(issue)).not.toContain('s3cret')
  })

  it('uses the GitHub App when its variables are set, and never shows the key', () => {
    const { privateKey } = generateAppKeyPair('pkcs8')
    const ok = load({
      GITHUB_APP_ID: '12',
      GITHUB_INSTALLATION_ID: '34',
      GITHUB_APP_PRIVATE_KEY: privateKey.replace(/\n/g, '\\n'),
    })
    expect(ok.ok && ok.config.forge.kind).toBe('github')
    const bad = issues({
      GITHUB_APP_ID: '12',
      GITHUB_INSTALLATION_ID: '34',
      GITHUB_APP_PRIVATE_KEY: 'ssh-rsa AAAAB3Nza secret-ish',
    })
    expect(bad.map((i) => i.variable)).toContain('GITHUB_APP_PRIVATE_KEY')
    expect(JSON.stringify(bad)).not.toContain('secret-ish')
  })

  it('never falls back to the sandbox in production', () => {
    expect(issues({ NODE_ENV: 'production' }).map((i) => i.variable)).toContain('GITHUB_APP_ID')
    const explicit = load({ NODE_ENV: 'production', LEASECRON_FORGE: 'sandbox' })
    expect(explicit.ok && explicit.config.forge.kind).toBe('sandbox')
  })
})

describe('typos and misplaced variables', () => {
  it.each([
    ['LEASECRON_SHUTDOWN_TIMEOUT', '5000', 'LEASECRON_SHUTDOWN_TIMEOUT_MS'],
    ['LEASECRON_FORGE_KIND', 'github', 'LEASECRON_FORGE'],
    ['LEASECRON_WORKERID', 'pod-a', 'LEASECRON_WORKER_ID'],
  ])(
    'refuses the unknown %s instead of running on defaults, naming the likely variable',
    (name, value, meant) => {
      const found = issues({ [name]: value }).find((i) => i.variable === name)
      expect(found, `${name} was silently ignored`).toBeDefined()
      expect(found!.expected).toContain(`did you mean ${meant}?`)
    },
  )

  it('accepts the ledger, cache and status page variables, and ignores the test and bench tools’ own', () => {
    expect(
      load({
        LEASECRON_RUN_HISTORY: '500',
        LEASECRON_FORGE_CACHE_MB: '64',
        LEASECRON_STATUS_PAGE: 'true',
        LEASECRON_NET_TICK_NET_CATCH_UP: 'none',
        LEASECRON_TEST_SKIP_MEMORY_SERVER: '1',
        LEASECRON_BENCH_QUICK: '1',
      }).ok,
    ).toBe(true)
  })

  it('points MONGO_URL (the tests’ variable) at MONGO_URI instead of silently running on memory', () => {
    const [issue] = issues({ MONGO_URL: 'mongodb://user:pw-secret@127.0.0.1:27017' })
    expect(issue).toMatchObject({ variable: 'MONGO_URL' })
    expect(issue!.expected).toMatch(/reads MONGO_URI/)
    expect(JSON.stringify(issue), 'the URL with its password was echoed').not.toContain('pw-secret')
    expect(load({ MONGO_URL: 'mongodb://127.0.0.1', MONGO_URI: 'mongodb://127.0.0.1' }).ok).toBe(true)
  })

  it('does not fall back to the sandbox when only GITHUB_API_URL is set', () => {
    const found = issues({ GITHUB_API_URL: 'https://ghe.example/api/v3' })
    expect(found.map((i) => i.variable).sort()).toEqual([
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY',
      'GITHUB_INSTALLATION_ID',
    ])
    expect(found[0]!.expected).toMatch(/GITHUB_API_URL is set/)
  })

  it('names every missing App variable in production', () => {
    const found = issues({ NODE_ENV: 'production' })
    expect(found.map((i) => i.variable).sort()).toEqual([
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY',
      'GITHUB_INSTALLATION_ID',
    ])
    for (const issue of found) expect(issue.expected).toMatch(/NODE_ENV=production/)
  })

  it('does not demand the App variables from a command that uses no forge, but keeps their problems', () => {
    const result = loadConfig({ NODE_ENV: 'production' }, [net], TEST_LEASES, { needsForge: false })
    expect(result.ok, 'status/config refused for want of a GitHub App').toBe(true)
    if (!result.ok) return
    expect(result.config.forge.kind).toBe('unchecked')
    expect(JSON.stringify(redactedConfig(result.config))).toMatch(/GITHUB_APP_ID/)
  })

  it('refuses a retry of 0 or below TTL/30, saying it would campaign in a hot loop', () => {
    for (const value of ['0', '10']) {
      const found = issues({ LEASECRON_NET_TICK_NET_TTL_MS: '3000', LEASECRON_NET_TICK_NET_RETRY_MS: value })
      expect(found[0], `RETRY_MS=${value} was accepted`).toMatchObject({
        variable: 'LEASECRON_NET_TICK_NET_RETRY_MS',
      })
      expect(found[0]!.expected).toMatch(/from 100 .*hot loop/)
    }
    expect(load({ LEASECRON_NET_TICK_NET_TTL_MS: '3000', LEASECRON_NET_TICK_NET_RETRY_MS: '100' }).ok).toBe(
      true,
    )
  })
})

describe('durations as a user writes them', () => {
  it('prints whole units so the value can be pasted back into its variable', () => {
    expect([3_600_000, 5_400_000, 90_000, 60_000, 1_500, 86_400_000].map(formatDuration)).toEqual([
      '1h',
      '90m',
      '90s',
      '1m',
      '1500ms',
      '1d',
    ])
  })

  it('shows the nets’ duration options with a unit in the printed configuration', () => {
    const result = load({ LEASECRON_NET_TICK_NET_WINDOW: '90m' })
    if (!result.ok) throw new Error('rejected')
    const shown = redactedConfig(result.config) as { nets: { options: Record<string, unknown> }[] }
    expect(shown.nets[0]!.options).toEqual({ DEPTH: 3, WINDOW: '90m' })
    expect(load({ LEASECRON_NET_TICK_NET_WINDOW: String(shown.nets[0]!.options.WINDOW) }).ok).toBe(true)
  })

  it('says a duration option’s bounds in the units the variable takes, not in milliseconds', () => {
    // Was "from 1 ms to 34560000000 ms": a bound to decode before it could be written back.
    const [problem] = issues({ LEASECRON_NET_TICK_NET_WINDOW: '1hour' })
    expect(problem?.expected).toMatch(
      /a duration with a unit \(ms, s, m, h, d\) from 1ms to 400d, e\.g\. 60m/,
    )
  })
})

describe('schedules', () => {
  it('gives the next firing after an instant', () => {
    const after = new Date(Date.now() + 1_000)
    const next = nextFireTime('*/5 * * * *', after)
    expect(next.getTime()).toBeGreaterThan(after.getTime())
    expect(next.getTime() - after.getTime()).toBeLessThanOrEqual(5 * 60_000)
    expect(next.getUTCMinutes() % 5).toBe(0)
    expect(next.getUTCSeconds()).toBe(0)
  })

  it('measures the shortest interval of a valid schedule', () => {
    expect(checkSchedule('*/5 * * * *')).toEqual({ ok: true, intervalMs: 300_000 })
  })
})

describe('the lease registry', () => {
  it('refuses a net whose lease is not registered', () => {
    const { net: stray } = recordingNet({ lease: 'unregistered' })
    const result = loadConfig({}, [stray], TEST_LEASES)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.issues[0]?.expected).toMatch(
      /lease "unregistered".*not registered.*add defineLease/,
    )
  })

  it('refuses two nets sharing a lease', () => {
    const a = recordingNet({ name: 'net-one' }).net
    const b = recordingNet({ name: 'net-two' }).net
    const result = loadConfig({}, [a, b], TEST_LEASES)
    expect(!result.ok && result.issues[0]?.expected).toMatch(/used by both net "net-one" and net "net-two"/)
  })

  it('refuses a registry that names one lease twice', () => {
    const result = loadConfig({}, [net], [...TEST_LEASES, TEST_LEASES[0]!])
    expect(!result.ok && result.issues[0]?.expected).toMatch(/registered twice/)
  })

  it('names a lease entry written as a bare name, with the defineLease to write instead', () => {
    // Was "net … names a lease that is not registered (registered: none)": the entry was there, unread.
    const names = ['l1'] as unknown as readonly LeaseDefinition[]
    const result = loadConfig({}, [net], names)
    expect(!result.ok && result.issues[0]).toEqual({
      variable: 'leases[0]',
      expected: expect.stringMatching(
        /defineLease\(name, description\).*got the string "l1"; write defineLease\('l1', /,
      ),
    })
  })

  it('refuses leases that are not an array, saying what they were', () => {
    const notAList = { name: 'l1' } as unknown as readonly LeaseDefinition[]
    const result = loadConfig({}, [net], notAList)
    expect(!result.ok && result.issues[0]?.expected).toMatch(/^an array of leases.*got an object/)
  })

  it('registers the built-in leases in kebab-case', () => {
    expect(LEASES.map((l) => l.name)).toEqual(['merge-gate-sweeper', 'board-issue-sync'])
  })
})

describe('pacing', () => {
  it('caps the TTL at 30 s so a crashed holder of a minute schedule is replaced before its next slot', () => {
    expect(leasePacing(60_000)).toEqual({ paceMs: 60_000, ttlMs: 30_000, retryMs: 30_000 })
    expect(leasePacing(300_000)).toEqual({ paceMs: 60_000, ttlMs: 30_000, retryMs: 30_000 })
    expect(leasePacing(86_400_000)).toEqual({ paceMs: 60_000, ttlMs: 30_000, retryMs: 30_000 })
    expect(leasePacing(10_000)).toEqual({ paceMs: 10_000, ttlMs: 30_000, retryMs: 10_000 })
    expect(leasePacing(9_000)).toEqual({ paceMs: 9_000, ttlMs: 27_000, retryMs: 9_000 })
  })

  it('keeps three intervals for fast schedules, and a set TTL bounds the default retry', () => {
    expect(leasePacing(1_000)).toEqual({ paceMs: 1_000, ttlMs: 3_000, retryMs: 1_000 })
    expect(leasePacing(1_000, { ttlMs: 10_000 })).toEqual({ paceMs: 1_000, ttlMs: 10_000, retryMs: 1_000 })
    expect(leasePacing(60_000, { ttlMs: 10_000 })).toEqual({ paceMs: 60_000, ttlMs: 10_000, retryMs: 10_000 })
    expect(leasePacing(60_000, { ttlMs: 180_000 })).toEqual({
      paceMs: 60_000,
      ttlMs: 180_000,
      retryMs: 60_000,
    })
    expect(leasePacing(60_000, { retryMs: 5_000 })).toEqual({ paceMs: 60_000, ttlMs: 30_000, retryMs: 5_000 })
  })
})

describe('owner ids', () => {
  it('are the host part plus 12 random hex characters, never shared', () => {
    const a = ownerId('pod-a')
    const b = ownerId('pod-a')
    expect(a).toMatch(/^pod-a-[0-9a-f]{12}$/)
    expect(a, 'two processes with one worker id share an owner').not.toBe(b)
    expect(ownerId()).toMatch(/-[0-9a-f]{12}$/)
  })
})

describe('issue 19: validation at the door', () => {
  const { privateKey } = generateAppKeyPair('pkcs8')
  const body = privateKey.split('\n')[1]!

  it('refuses a PEM key given as GITHUB_APP_PRIVATE_KEY_FILE, saying so without echoing it', () => {
    for (const value of [privateKey, privateKey.replace(/\n/g, '\\n')]) {
      const found = issues({
        GITHUB_APP_ID: '1',
        GITHUB_INSTALLATION_ID: '2',
        GITHUB_APP_PRIVATE_KEY_FILE: value,
      }).find((i) => i.variable === 'GITHUB_APP_PRIVATE_KEY_FILE')
      expect(found?.expected).toMatch(/looks like a PEM key itself, not a path/)
      expect(found?.value, 'the key was echoed as the value').toBeUndefined()
      expect(JSON.stringify(found)).not.toContain(body)
    }
  })

  it.each([
    ['GITHUB_API_URL', 'https://bob:ghpassword1@ghe.example/api/v3'],
    ['GITHUB_API_URL', 'https://ghp_abcdefabcdefabcdefabcd@ghe.example/api/v3'],
    ['PUBLIC_URL', 'https://bob:pagepassword@review.example'],
  ])('refuses credentials inside %s, naming the variable and not the value', (variable, value) => {
    const env: Record<string, string> =
      variable === 'GITHUB_API_URL'
        ? { GITHUB_APP_ID: '1', GITHUB_INSTALLATION_ID: '2', GITHUB_APP_PRIVATE_KEY: privateKey }
        : {}
    const found = issues({ ...env, [variable]: value }).find((i) => i.variable === variable)
    expect(found?.expected, `${variable} with credentials was accepted`).toMatch(/without credentials/)
    expect(JSON.stringify(found)).not.toMatch(/ghpassword1|ghp_abcdef|pagepassword/)
  })

  it('refuses a TTL under one second, suggesting the unit that was likely meant', () => {
    const found = issues({ LEASECRON_NET_TICK_NET_TTL_MS: '30' }).find(
      (i) => i.variable === 'LEASECRON_NET_TICK_NET_TTL_MS',
    )
    expect(found?.expected, 'a 30 ms TTL (never elects) was accepted').toMatch(/from 1000 .*write 30000/)
    expect(load({ LEASECRON_NET_TICK_NET_TTL_MS: '999' }).ok).toBe(false)
    expect(load({ LEASECRON_NET_TICK_NET_TTL_MS: '1000' }).ok).toBe(true)
  })

  it.each([
    ['LEASECRON_NET_TICK_NET_TTL_MS', '6s', 'write 6000'],
    ['LEASECRON_NET_TICK_NET_TTL_MS', ' 1m ', 'for 1m, write 60000'],
    ['LEASECRON_NET_TICK_NET_RETRY_MS', '1s', 'write 1000'],
  ])('refuses %s=%j, a duration with a unit, naming the milliseconds to write', (variable, value, hint) => {
    const found = issues({ [variable]: value }).find((i) => i.variable === variable)
    expect(found?.expected, `${value} was refused without the number to write`).toContain(hint)
    expect(found?.expected).toMatch(/takes milliseconds without a unit/)
  })

  it('names no unit for a value that is no duration', () => {
    const found = issues({ LEASECRON_NET_TICK_NET_RETRY_MS: 'soon' }).find(
      (i) => i.variable === 'LEASECRON_NET_TICK_NET_RETRY_MS',
    )
    expect(found?.expected).not.toMatch(/without a unit/)
  })

  it.each<Record<string, string>>([{ MONGO_DB: 'lc' }, { MONGO_DB: 'lc', MONGO_URI: ' ' }])(
    'refuses MONGO_DB without MONGO_URI (%j) instead of running on memory',
    (env) => {
      const found = issues(env).find((i) => i.variable === 'MONGO_URI')
      expect(found?.expected).toMatch(
        /MONGO_DB is set, so a database was meant, but MONGO_URI is (unset|blank)/,
      )
    },
  )

  it('accepts LEASECRON_CHROMIUM, the browser docs/development.md tells developers to set', () => {
    expect(load({ LEASECRON_CHROMIUM: '/opt/chromium/chrome' }).ok).toBe(true)
  })

  it('refuses a schedule the slot calculator cannot read, though node-cron accepts it', () => {
    const found = issues({ LEASECRON_NET_TICK_NET_SCHEDULE: '1-0 * * * *' }).find(
      (i) => i.variable === 'LEASECRON_NET_TICK_NET_SCHEDULE',
    )
    expect(found?.expected, 'a schedule every pass of which would fail was accepted').toMatch(
      /the range 1-0 runs backwards/,
    )
    expect(checkSchedule('0 0 1 * 1')).toMatchObject({
      ok: false,
      expected: expect.stringMatching(/both restricted/),
    })
  })

  it('says a day that never occurs in the month never fires, not that it is out of range', () => {
    const check = checkSchedule('0 0 30 2 *')
    expect(check.ok).toBe(false)
    if (check.ok) return
    expect(check.expected).toMatch(
      /day of month: 30 never occurs in February, so the schedule would never fire/,
    )
    expect(check.expected).not.toMatch(/out of range/)
  })

  it('reports an invalid schedule of a configuration module’s net as a configuration problem', () => {
    const { net: broken } = recordingNet({ schedule: '1-0 * * * *' })
    const result = loadConfig({}, [broken], TEST_LEASES)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues[0]).toMatchObject({
      variable: 'net "tick-net" (worker configuration module)',
      expected: expect.stringMatching(/range 1-0 runs backwards/),
    })
  })

  it('scrubs MONGO_URI’s secret options from the printed configuration', () => {
    const result = load({
      MONGO_URI:
        'mongodb://u:pw1secret@db.example/?proxyHost=p&proxyPassword=proxypw9&tls=true&tlsCertificateKeyFilePassword=tlspw123&authMechanismProperties=AWS_SESSION_TOKEN:awstoken77',
    })
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const shown = JSON.stringify(redactedConfig(result.config))
    for (const secret of ['pw1secret', 'proxypw9', 'tlspw123', 'awstoken77'])
      expect(shown, `${secret} is printed by config`).not.toContain(secret)
  })
})
