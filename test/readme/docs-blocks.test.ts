/**
 * The blocks of the README and the guide that need a running worker or a packed tarball are run here, as
 * written (readme-blocks.test.ts runs the others, and fails on a block that no runner takes and that does
 * not say in its fence why it cannot be run):
 *
 * - `run=admin`: against a built worker started with an admin token (`TOKEN=…` becomes that token, 8080
 *   its free port); every answer must be a success, and a `json answer-of=admin` block shows the first
 *   answer's shape (its keys, and its `action`, `net` and `outcome`);
 * - `run=install`: in a project folder beside a folder `leasecron` that holds this package's tarball, as
 *   `npm pack` names it (so the version in the block is the package's).
 *
 * The process settings' defaults docs/configuration.md gives are checked against `leasecron config` too.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { packPackage } from '../support/consumer-install.js'
import { freePort } from '../support/free-port.js'
import { pageBlocks, where } from '../support/page-blocks.js'
import { REAP, runShell } from '../support/shell-block.js'
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DOCS = join(ROOT, 'docs')

const blocks = pageBlocks()
const runs = (kind: string) => blocks.filter((b) => b.noRun === undefined && b.tags.run === kind)

const work = mkdtempSync(join(tmpdir(), 'leasecron-docs-blocks-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built, so the docs' blocks cannot run: ${buildError}`)
})

describe('the docs', () => {
  it('still hold the blocks this file runs', () => {
    // Without them the loops below would make no test and pass unseen.
    expect(runs('admin').length, 'the admin API examples are gone').toBeGreaterThan(0)
    expect(runs('install').length, 'the tarball install is gone').toBeGreaterThan(0)
  })
})

describe('the admin API examples (docs/operations.md)', () => {
  let worker: WorkerProcess
  let port: number
  const token = 'docs-admin-token-0123456789'
  beforeAll(async () => {
    port = await freePort()
    worker = startWorkerProcess(['run'], {
      PORT: String(port),
      LEASECRON_ADMIN_TOKEN: token,
      LEASECRON_SHUTDOWN_TIMEOUT_MS: '3000',
    })
    await worker.waitFor((l) => l.msg === 'elected', 30_000, 'the worker’s first election')
  })
  afterAll(() => worker?.stop('SIGTERM', 10_000))

  for (const block of runs('admin')) {
    it(`answer each request with a success, shaped as the page shows (${where(block)})`, async () => {
      const script = block.text
        .replace(/^TOKEN=….*$/m, `TOKEN=${token}`)
        .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      expect(script, 'the block no longer sets TOKEN=…').toContain(`TOKEN=${token}`)
      const result = await runShell(REAP + script, work, {}, 60_000)
      expect(result.code, `${where(block)} failed:\n${result.stdout}\n${result.stderr}`).toBe(0)
      const answers = jsonValues(result.stdout)
      expect(answers.length, 'one answer per request').toBe((block.text.match(/curl /g) ?? []).length)
      for (const answer of answers)
        expect(answer, 'a request the page shows is refused').not.toHaveProperty('error')
      const shown = blocks.find((b) => b.tags['answer-of'] === 'admin')
      expect(shown, 'the answer the page shows is gone').toBeDefined()
      const sample = JSON.parse(shown!.text) as Record<string, unknown>
      expect(shapeOf(answers[0]), `${where(shown!)} shows an answer of another shape`).toEqual(
        shapeOf(sample),
      )
      for (const key of ['action', 'net', 'outcome'])
        expect(answers[0]![key], `${where(shown!)} shows another ${key}`).toBe(sample[key])
    }, 90_000)
  }
})

/** The JSON objects one after another in `text` (each answer may span lines). */
function jsonValues(text: string): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = []
  let pending = ''
  for (const line of text.split('\n')) {
    pending += `${line}\n`
    try {
      values.push(JSON.parse(pending) as Record<string, unknown>)
      pending = ''
    } catch {
      // Not a whole value yet: the next line continues it.
    }
  }
  expect(pending.trim(), 'the answers end in something that is not JSON').toBe('')
  return values
}

/** The object's keys, nested, with each leaf's JSON type: what a reader may rely on. */
function shapeOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value
  if (Array.isArray(value)) return value.map(shapeOf)
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, shapeOf(v)]),
  )
}

describe('the install from a release tarball (docs/install.md)', () => {
  for (const block of runs('install')) {
    it(`installs the packed package as written (${where(block)})`, async () => {
      const clone = join(work, 'leasecron')
      const project = join(work, 'project')
      mkdirSync(clone)
      mkdirSync(project)
      const packed = await packPackage(ROOT, clone)
      expect(block.text, `${where(block)} names another tarball than npm pack makes`).toContain(
        `../leasecron/${packed.filename}`,
      )
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'project', private: true }))
      // The npm cache that `npm ci` filled answers first (jiti): the text is the user's, the network optional.
      const result = await runShell(
        REAP + block.text,
        project,
        { npm_config_prefer_offline: 'true' },
        240_000,
      )
      expect(result.code, `${where(block)} failed:\n${result.stdout}\n${result.stderr}`).toBe(0)
      const installed = JSON.parse(
        readFileSync(join(project, 'node_modules', 'leasecron', 'package.json'), 'utf8'),
      ) as { version: string }
      const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
      expect(installed.version).toBe(ours.version)
    }, 300_000)
  }
})

describe('the figures docs/configuration.md quotes', () => {
  it('gives the process settings the defaults `leasecron config` prints', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist/bundle/leasecron.js'), 'config'],
      { cwd: work, env: { PATH: process.env.PATH ?? '', MONGO_URI: 'mongodb://127.0.0.1:9/' } },
    )
    const config = JSON.parse(stdout) as Record<string, unknown> & { mongo: { db: string } }
    const printed: Record<string, unknown> = {
      MONGO_DB: config.mongo.db,
      PORT: config.port,
      LEASECRON_STATUS_PAGE: config.statusPage,
      LOG_LEVEL: config.logLevel,
      LEASECRON_SHUTDOWN_TIMEOUT_MS: config.shutdownTimeoutMs,
      LEASECRON_RUN_HISTORY: config.runHistory,
      LEASECRON_FORGE_CACHE_MB: config.forgeCacheMb,
      LEASECRON_FORGE_RESERVE: config.forgeReserve,
      LEASECRON_INSTALLATIONS_REFRESH: config.installationsRefresh,
      LEASECRON_CLOCK_GUARD: config.clockGuard,
      LEASECRON_FAIR_SHARE: config.fairShare,
      LEASECRON_FAIR_SHARE_SLACK: config.fairShareSlack,
    }
    const markdown = readFileSync(join(DOCS, 'configuration.md'), 'utf8')
    for (const [variable, value] of Object.entries(printed)) {
      const row = new RegExp(`^\\| \`${variable}\` \\| \`?([^\`|]+?)\`? \\|`, 'm').exec(markdown)
      expect(row, `docs/configuration.md lost its row for ${variable}`).not.toBeNull()
      expect(row![1], `docs/configuration.md gives ${variable} a default config does not print`).toBe(
        String(value),
      )
    }
  }, 60_000)
})
