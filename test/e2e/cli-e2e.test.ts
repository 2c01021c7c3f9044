/**
 * The CLI's one-shot commands on the built worker: `once`, `status`, `config`, `--help`.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { MongoStore } from '../../src/index.js'
import { freePort as closedPort } from '../support/free-port.js'
import { useE2eSandbox } from '../support/e2e-sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { startWorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/e2e-nets.mjs', import.meta.url))
const e2e = useE2eSandbox()
const { githubEnv } = e2e
let client: MongoClient | undefined
afterAll(() => client?.close())

// The every-second net's default TIMEOUT is its 1 s interval, which a cold `once` (set-up, a token mint)
// can outrun on a loaded machine: these tests are about the CLI, not the timeout.
const SLOW_OK = { LEASECRON_NET_E2E_TICK_TIMEOUT: '20s' }

async function cli(args: string[], env: Record<string, string>) {
  const w = startWorkerProcess([...args, '--config', NETS], { ...SLOW_OK, ...env })
  const { code } = await w.exited
  return { code, lines: w.lines, text: w.text.join('\n') }
}

describe('leasecron once', () => {
  it('acquires the lease, runs one pass, releases it and exits 0', async () => {
    const { code, lines, text } = await cli(['once', 'e2e-tick'], githubEnv())
    expect(code).toBe(0)
    expect(lines.filter((l) => l.event === 'pass-end')).toHaveLength(1)
    expect(text).toMatch(/e2e-tick: ran slot \S+ as \S+ \(fence 1\)/)
    expect(lines.map((l) => l.msg)).toContain('released')
  }, 30_000)

  it('exits 0 without a pass when another owner holds the lease, saying who', async () => {
    const mongo = mongoServer()
    const db = `cli_${Date.now().toString(36)}`
    client = new MongoClient(mongo.url)
    const store = new MongoStore(client.db(db))
    expect(await store.acquire('e2e-tick', 'someone-else-0123456789ab', new Date(), 60_000)).toMatchObject({
      owner: 'someone-else-0123456789ab',
    })
    const { code, lines, text } = await cli(['once', 'e2e-tick'], {
      ...githubEnv(),
      MONGO_URI: mongo.url,
      MONGO_DB: db,
    })
    expect(code).toBe(0)
    expect(text).toMatch(/held by someone-else-0123456789ab/)
    expect(
      lines.filter((l) => l.event === 'pass-start'),
      'a pass ran without the lease',
    ).toEqual([])
  }, 30_000)

  it('refuses an unknown net with usage exit 64', async () => {
    const { code, text } = await cli(['once', 'nope'], githubEnv())
    expect(code).toBe(64)
    expect(text).toMatch(/expected one of e2e-tick; got nope/)
  }, 30_000)
})

describe('leasecron status and config', () => {
  it('lists the leases in the configured store with owner and time to expiry', async () => {
    const mongo = mongoServer()
    const db = `status_${Date.now().toString(36)}`
    client ??= new MongoClient(mongo.url)
    await new MongoStore(client.db(db)).acquire('e2e-tick', 'holder-abcdef012345', new Date(), 60_000)
    const { code, text } = await cli(['status'], { MONGO_URI: mongo.url, MONGO_DB: db })
    expect(code).toBe(0)
    expect(text).toMatch(/^LEASE\s+HOLDER\s+FENCE\s+EXPIRES\s+STATE\s+LAST RUN$/m)
    const left =
      /e2e-tick\s+holder-abcdef012345\s+fence 1\s+expires in (\d+\.\d) s\s+late\s+no run recorded/.exec(text)
    expect(left, 'the lease was not listed with its holder, fence and time to expiry').not.toBeNull()
    // Generous: a loaded machine takes seconds to start the process.
    expect(Number(left![1])).toBeGreaterThan(20)
    expect(Number(left![1])).toBeLessThanOrEqual(60)
  }, 30_000)

  it('shows a net’s last run in status and its runs in history', async () => {
    const mongo = mongoServer()
    const db = `history_${Date.now().toString(36)}`
    const env = { ...githubEnv(), MONGO_URI: mongo.url, MONGO_DB: db }
    const ran = await cli(['once', 'e2e-tick', '--slot', '2026-09-30T15:00:00Z', '--json'], env)
    expect(ran.code).toBe(0)
    const result = ran.lines.find((l) => l.outcome === 'ran')
    expect(result, `once did not run: ${ran.text}`).toBeDefined()
    const status = await cli(['status'], env)
    expect(status.text).toMatch(
      /e2e-tick\s+\(free\)\s+fence 1\s+free \(released\)\s+(ok|late)\s+last run 2026-09-30T15:00:00.000Z by \S+: ok in \d+\.\d s/,
    )
    const history = await cli(['history', 'e2e-tick', '--json'], env)
    expect(history.code).toBe(0)
    expect(JSON.parse(history.text)).toEqual([
      expect.objectContaining({
        slot: '2026-09-30T15:00:00.000Z',
        owner: result!.owner,
        fence: 1,
        outcome: 'ok',
        attempts: 1,
        requests: { 'e2e-tick': 1 },
      }),
    ])
    const table = await cli(['history', 'e2e-tick', '--limit', '5'], env)
    const rows = table.text.split('\n')
    expect(rows[0]).toMatch(/^slot\s+owner\s+fence\s+started\s+duration\s+outcome\s+attempts\s+requests$/)
    expect(rows[1]).toMatch(/^2026-09-30T15:00:00.000Z .* ok\s+1\s+e2e-tick=1$/)
    const berlin = { ...env, LEASECRON_NET_E2E_TICK_TIME_ZONE: 'Europe/Berlin' }
    const local = (await cli(['history', 'e2e-tick'], berlin)).text.split('\n')
    expect(local[0]).toMatch(/^slot\s+local \(Europe\/Berlin\)\s+owner/)
    expect(local[1]).toMatch(/^2026-09-30T15:00:00.000Z\s+2026-09-30 17:00 \+02:00\s/)
    expect((await cli(['status'], berlin)).text).toContain(
      'last run 2026-09-30T15:00:00.000Z (2026-09-30 17:00 +02:00 Europe/Berlin)',
    )
    const bad = await cli(['history', 'e2e-tick', '--limit', 'lots'], env)
    expect(bad.code).toBe(64)
    expect(bad.text).toMatch(/--limit: expected a whole number from 1 to 1000; got "lots"/)
  }, 60_000)

  it('prints the effective configuration without the private key', async () => {
    const { code, text } = await cli(['config'], {
      ...githubEnv(),
      MONGO_URI: 'mongodb://user:hunter2@127.0.0.1:1/x',
    })
    expect(code).toBe(0)
    const shown = JSON.parse(text)
    expect(shown.forge).toMatchObject({ kind: 'github', appId: e2e.sandbox.appId, privateKey: '[redacted]' })
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain(e2e.sandbox.privateKey.split('\n')[1]!)
  }, 30_000)

  it('prints the configuration errors and exits 78', async () => {
    const { code, text } = await cli(['config'], { LOG_LEVEL: 'chatty' })
    expect(code).toBe(78)
    expect(text).toMatch(
      /LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "chatty"/,
    )
  }, 30_000)

  it('refuses an unknown time zone with exit 78, naming the variable, the value and what a zone is', async () => {
    const { code, text } = await cli(['config'], { LEASECRON_NET_E2E_TICK_TIME_ZONE: 'Europe/Berlni' })
    expect(code).toBe(78)
    expect(text).toMatch(
      /LEASECRON_NET_E2E_TICK_TIME_ZONE: expected an IANA time zone name, e\.g\. `Europe\/Berlin`.*, got "Europe\/Berlni"/,
    )
  }, 30_000)

  it('refuses a MONGO_URI option the driver rejects before anything starts, without echoing the password', async () => {
    for (const command of ['config', 'run']) {
      const { code, text } = await cli([command], {
        MONGO_URI: 'mongodb://user:hunter2@127.0.0.1:1/x?maxPoolSize=lots',
      })
      expect(code, `${command} started with a connection string the driver refuses`).toBe(78)
      expect(text).toMatch(
        /MONGO_URI: expected a mongodb:\/\/ or mongodb\+srv:\/\/ connection string the driver accepts; the driver said: .*maxPoolSize/,
      )
      expect(text).not.toContain('hunter2')
    }
  }, 30_000)

  it('explains each command with --help', async () => {
    for (const command of ['run', 'once', 'status', 'history', 'config']) {
      const { code, text } = await cli([command, '--help'], {})
      expect(code).toBe(0)
      expect(text).toContain(`Usage: leasecron ${command}`)
    }
  }, 60_000)
})

describe('what a user tries first', () => {
  it('prints the package version with --version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    const { code, text } = await cli(['--version'], {})
    expect(code).toBe(0)
    expect(text).toBe(`leasecron ${version}`)
  }, 30_000)

  it('answers `help once` and `once --help` with the usage and the nets it can run', async () => {
    for (const args of [
      ['help', 'once'],
      ['once', '--help'],
    ]) {
      const { code, text } = await cli(args, {})
      expect(code).toBe(0)
      expect(text).toContain('Usage: leasecron once <net>')
      expect(text, `${args.join(' ')} did not list the nets`).toMatch(
        /Nets:\n\s+e2e-tick\s+\* \* \* \* \* \*\s+end-to-end test net/,
      )
    }
  }, 60_000)

  it('refuses extra arguments with usage exit 64', async () => {
    for (const args of [
      ['status', 'extra'],
      ['once', 'e2e-tick', 'again'],
      ['config', '--port', '1'],
    ]) {
      const { code, text } = await cli(args, {})
      expect(code, `${args.join(' ')} was accepted`).toBe(64)
      expect(text).toMatch(/leasecron: .*(unexpected argument|belongs to the sandbox command)/)
    }
  }, 60_000)

  it('names an unknown or valueless option plainly and shows the help of the command it was given to', async () => {
    const unknown = await cli(['status', '--bogus'], {})
    expect(unknown.code).toBe(64)
    expect(unknown.text).toMatch(/^leasecron: unknown option --bogus$/m)
    expect(unknown.text, 'the help shown was not the status command’s').toMatch(/Usage: leasecron status/)
    const valueless = await cli(['once', 'e2e-tick', '--slot'], {})
    expect(valueless.code).toBe(64)
    expect(valueless.text).toMatch(/^leasecron: --slot needs a value$/m)
    expect(valueless.text).toMatch(/Usage: leasecron once/)
  }, 60_000)

  it('runs `status` in production without the App variables; `config` prints and says run would refuse them (78)', async () => {
    const status = await cli(['status'], { NODE_ENV: 'production' })
    expect(status.code, status.text).toBe(0)
    const config = await cli(['config'], { NODE_ENV: 'production' })
    expect(config.code, 'config passed an environment the worker refuses to start on').toBe(78)
    expect(config.text).toMatch(/leasecron config: run and once would refuse the GitHub App variables/)
    const json = config.text
      .split('\n')
      .filter((l) => !l.startsWith('leasecron config:'))
      .join('\n')
    expect(JSON.parse(json).forge.kind).toBe('unchecked')
  }, 60_000)

  it('names the cause when `status` cannot reach Mongo', async () => {
    const port = await closedPort()
    const { code, text } = await cli(['status'], {
      MONGO_URI: `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=1000`,
    })
    expect(code).toBe(1)
    expect(text).toContain(`the lease store did not answer: connection refused at 127.0.0.1:${port}`)
  }, 30_000)

  it('says `once` elects itself on the in-memory store and uses the sandbox when nothing is configured', async () => {
    const { code, lines } = await cli(['once', 'e2e-tick'], {})
    expect(code).toBe(0)
    const messages = lines.map((l) => l.msg)
    expect(messages.some((m) => /^single-process mode: .*elects itself/.test(m))).toBe(true)
    expect(messages).toContain('using the local sandbox forge, not GitHub')
    expect(lines.filter((l) => l.event === 'pass-end')).toHaveLength(1)
  }, 30_000)
})
