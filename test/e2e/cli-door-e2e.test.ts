/**
 * Issue 19 on the built CLI (dist/), as a user meets it: no secret printed or stored (a key in the wrong
 * variable, credentials in a URL, secrets in a pass's error), and bad input refused at the door with the
 * exit code the README gives (78 configuration, 64 usage).
 */
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort as closedPort } from '../support/free-port.js'
import { useE2eSandbox } from '../support/e2e-sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { startWorkerProcess } from '../support/worker-process.js'

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const NETS = fixture('e2e-nets.mjs')
const LEAKY = fixture('leaky-nets.mjs')
const e2e = useE2eSandbox()
const { githubEnv } = e2e
let client: MongoClient | undefined
afterAll(() => client?.close())
const keyBody = () => e2e.sandbox.privateKey.split('\n')[1]!

async function cli(args: string[], env: Record<string, string>, config = NETS) {
  const w = startWorkerProcess([...args, '--config', config], env)
  const { code } = await w.exited
  return { code, lines: w.lines, text: w.text.join('\n') }
}

describe('no secret leaves the process', () => {
  it('refuses a PEM key put in GITHUB_APP_PRIVATE_KEY_FILE (exit 78) without printing it', async () => {
    for (const command of ['config', 'run']) {
      const { code, text } = await cli([command], {
        GITHUB_APP_ID: '1',
        GITHUB_INSTALLATION_ID: '2',
        GITHUB_APP_PRIVATE_KEY_FILE: e2e.sandbox.privateKey,
      })
      if (command === 'run') expect(code, 'run started with a key in the path variable').toBe(78)
      expect(text).toMatch(
        /GITHUB_APP_PRIVATE_KEY_FILE[\s\S]*the path of a file .*looks like a PEM key itself/,
      )
      expect(text, `${command} printed the private key`).not.toContain(keyBody())
      expect(text).not.toContain('BEGIN PRIVATE KEY')
    }
  }, 60_000)

  it('refuses credentials inside GITHUB_API_URL and PUBLIC_URL (exit 78), naming the variable only', async () => {
    const api = await cli(['run'], { ...githubEnv(), GITHUB_API_URL: 'http://bob:apipassword9@127.0.0.1:1' })
    expect(api.code).toBe(78)
    expect(api.text).toMatch(/GITHUB_API_URL: expected an absolute http\(s\) URL without credentials/)
    const page = await cli(['run'], { PUBLIC_URL: 'https://bob:pagepassword9@review.example' })
    expect(page.code).toBe(78)
    expect(page.text).toMatch(/PUBLIC_URL: expected an http\(s\) URL without credentials/)
    expect(`${api.text}${page.text}`).not.toMatch(/apipassword9|pagepassword9/)
  }, 60_000)

  it('prints no secret option of MONGO_URI’s query string in `config`', async () => {
    const { code, text } = await cli(['config'], {
      MONGO_URI:
        'mongodb://u:userpw55@127.0.0.1:1/x?proxyHost=127.0.0.1&proxyUsername=p&proxyPassword=proxypw9',
    })
    expect(code, text).toBe(0)
    expect(text).toContain('proxyPassword=[redacted]')
    expect(text, 'config printed a secret of MONGO_URI').not.toMatch(/proxypw9|userpw55/)
  }, 30_000)

  it('stores, prints and serves a failed pass’s error scrubbed and capped', async () => {
    const mongo = mongoServer()
    const db = `door_${Date.now().toString(36)}`
    const env = {
      ...githubEnv(),
      MONGO_URI: mongo.url,
      MONGO_DB: db,
      LEASECRON_NET_LEAKY_NET_HOOK: 'plainhookvalue123',
    }
    const secrets = ['urlpassword77', 'plainhookvalue123', keyBody()]
    const once = await cli(['once', 'leaky-net', '--slot', '2026-09-30T15:00:00Z', '--json'], env, LEAKY)
    expect(once.code).toBe(1)
    for (const secret of secrets) expect(once.text, `once printed ${secret}`).not.toContain(secret)
    client ??= new MongoClient(mongo.url)
    const stored = await client.db(db).collection('net_runs').findOne({ net: 'leaky-net' })
    expect(stored?.error).toMatch(
      /^Error: GET https:\/\/\*\*\*:\*\*\*@ghe\.example\/api\/v3 failed \(hook \[redacted\]\)/,
    )
    for (const secret of secrets) expect(stored?.error, `the ledger stored ${secret}`).not.toContain(secret)
    expect(stored?.error, 'the stored error was not capped').toMatch(/… \[\d+ more characters not kept\]$/)
    expect(String(stored?.error).length).toBeLessThan(2_100)
    const history = await cli(['history', 'leaky-net', '--json'], env, LEAKY)
    expect(JSON.parse(history.text)[0].error).toBe(stored?.error)
  }, 60_000)
})

describe('bad input refused at the door', () => {
  it('refuses a schedule cron-parser cannot compute with, from a variable or the module (78)', async () => {
    const fromVariable = await cli(['config'], { LEASECRON_NET_E2E_TICK_SCHEDULE: '1-0 * * * *' })
    expect(fromVariable.code, 'a schedule whose every pass fails was accepted').toBe(78)
    expect(fromVariable.text).toMatch(/LEASECRON_NET_E2E_TICK_SCHEDULE: .*the range 1-0 runs backwards/)
    const fromModule = await cli(['run'], {}, fixture('backwards-schedule-nets.mjs'))
    expect(fromModule.code, fromModule.text).toBe(78)
    expect(fromModule.text).toMatch(
      /net "backwards-net" \(worker configuration module\): .*1-0 runs backwards/,
    )
    const february = await cli(['config'], { LEASECRON_NET_E2E_TICK_SCHEDULE: '0 0 30 2 *' })
    expect(february.code).toBe(78)
    expect(february.text).toMatch(
      /day of month: 30 never occurs in February, so the schedule would never fire/,
    )
  }, 60_000)

  it('refuses a --slot that is not a real instant or lies ahead of now (64)', async () => {
    for (const [slot, why] of [
      ['2026-02-30T00:00:00Z', /not a real instant: day 30 \(2026-02 has 28 days\)/],
      ['9999-12-31T23:59:59Z', /at most 60 s after now .*s after it/],
    ] as const) {
      const { code, text } = await cli(['once', 'e2e-tick', '--slot', slot], {})
      expect(code, `--slot ${slot} was run`).toBe(64)
      expect(text).toMatch(why)
    }
  }, 60_000)

  it('names the real cause when `once` cannot reach Mongo, not "Topology is closed"', async () => {
    const port = await closedPort()
    const { code, text, lines } = await cli(['once', 'e2e-tick'], {
      MONGO_URI: `mongodb://127.0.0.1:${port}/`,
    })
    expect(code).toBe(1)
    // The forge cache's index, asked for at start-up, must not fail beside the cause once the client closed.
    const logged = JSON.stringify(lines)
    expect(logged, 'a store call made after the client closed was logged beside the real cause').not.toMatch(
      /Topology is closed|TopologyClosed/,
    )
    expect(logged, 'the real cause was not logged').toMatch(/connection refused at 127\.0\.0\.1/)
    expect(text).toMatch(
      new RegExp(
        `failed: MongoDB \\(MONGO_URI\\) did not answer: connection refused at 127\\.0\\.0\\.1:${port}$`,
        'm',
      ),
    )
  }, 60_000)

  it('refuses a TTL under a second and MONGO_DB without MONGO_URI (78); accepts LEASECRON_CHROMIUM', async () => {
    const ttl = await cli(['run'], { LEASECRON_NET_E2E_TICK_TTL_MS: '30' })
    expect(ttl.code, 'a TTL that never elects was accepted').toBe(78)
    expect(ttl.text).toMatch(/if 30 meant seconds, write 30000/)
    const db = await cli(['run'], { MONGO_URI: '', MONGO_DB: 'leasecron' })
    expect(db.code, 'MONGO_DB without MONGO_URI ran on memory').toBe(78)
    expect(db.text).toMatch(/MONGO_URI: expected .*MONGO_DB is set/)
    const chromium = await cli(['config'], { LEASECRON_CHROMIUM: '/usr/bin/chromium' })
    expect(chromium.code, chromium.text).toBe(0)
  }, 60_000)

  it('reports a configuration module whose top-level await never settles (78), not a silent exit 0', async () => {
    const { code, text } = await cli(['run'], {}, fixture('unsettled-config.mjs'))
    expect(code, 'run exited without a word').toBe(78)
    expect(text).toMatch(/unsettled-config\.mjs: its loading never finished: a top-level await/)
  }, 30_000)

  it('lists the runs of a net no longer configured, saying they are never pruned and how to remove them', async () => {
    const mongo = mongoServer()
    const db = `removed_${Date.now().toString(36)}`
    const env = { ...githubEnv(), MONGO_URI: mongo.url, MONGO_DB: db }
    await cli(['once', 'leaky-net', '--slot', '2026-09-30T15:00:00Z'], env, LEAKY)
    const { code, text } = await cli(['history', 'leaky-net'], env)
    expect(code, text).toBe(0)
    expect(text).toMatch(/^2026-09-30T15:00:00.000Z .* failed/m)
    expect(text).toMatch(
      /"leaky-net" is not in this configuration: its runs \(1\) stay in net_runs, never pruned/,
    )
    const unknown = await cli(['history', 'never-was'], env)
    expect(unknown.code).toBe(64)
  }, 60_000)
})
