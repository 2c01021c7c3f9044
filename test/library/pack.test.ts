/**
 * The package as a user gets it: `npm pack`, then an empty project installs the tarball (from
 * the tarball, preferring the npm cache `npm ci` filled) with dev dependencies omitted, imports the public API as
 * ESM and with require(), runs the `leasecron` bin with a TypeScript configuration, and type-checks a
 * consumer file with `tsc`.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'leasecron-pack-'))
const consumer = join(work, 'consumer')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const env = { ...process.env, NODE_ENV: 'production', npm_config_update_notifier: 'false' }

afterAll(() => rmSync(work, { recursive: true, force: true }))

interface PackResult {
  filename: string
  files: { path: string }[]
}

let packed: PackResult

function sh(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  return exec(cmd, args, { cwd, env: { ...env, ...extra }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 })
}

beforeAll(async () => {
  expect(inject('buildError'), 'dist/ did not build').toBeUndefined()
  // --ignore-scripts: the global setup built dist/ already; pack must not rebuild under a running suite.
  const { stdout } = await sh(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root)
  packed = (JSON.parse(stdout) as PackResult[])[0] as PackResult
  mkdirSync(consumer)
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { leasecron: `file:../${packed.filename}` },
      devDependencies: { '@types/node': '20.19.43', vitest: '4.1.12' },
    }),
  )
  await sh(NPM, ['install', '--prefer-offline', '--omit=dev', '--no-audit', '--no-fund'], consumer)
}, 300_000)

describe('the packed leasecron', () => {
  test('ships the bundled library, CLI and declarations, and no tests, benchmarks, source maps or fixtures', () => {
    const paths = packed.files.map((f) => f.path)
    for (const entry of ['index', 'sandbox', 'testing', 'leasecron', 'worker.config'])
      expect(paths).toContain(`dist/bundle/${entry}.js`)
    expect(paths).toContain('dist/src/index.d.ts')
    expect(paths).toContain('dist/src/sandbox.d.ts')
    expect(paths).toContain('dist/src/testing.d.ts')
    const stray = paths.filter(
      (p) =>
        !/^(dist\/bundle\/(chunks\/)?[\w.-]+\.js|dist\/src\/.*\.d\.ts|README\.md|package\.json|LICENSE)$/.test(
          p,
        ),
    )
    expect(stray, 'files a consumer does not need were packed').toEqual([])
    expect(paths.filter((p) => /(^|\/)(test|bench|fixtures)\//.test(p))).toEqual([])
  })

  test('imports the public API as ESM from the package name', async () => {
    const script = [
      "import { run, MongoStore, MemoryStore, createWorker, defineNet, defineLease, leaseCoordinator } from 'leasecron'",
      "import { startSandboxForge } from 'leasecron/sandbox'",
      'const found = { run, MongoStore, MemoryStore, createWorker, defineNet, defineLease, leaseCoordinator, startSandboxForge }',
      'console.log(JSON.stringify(Object.fromEntries(Object.entries(found).map(([k, v]) => [k, typeof v]))))',
    ].join('\n')
    writeFileSync(join(consumer, 'esm.mjs'), script)
    const { stdout } = await sh(process.execPath, ['esm.mjs'], consumer)
    const kinds = JSON.parse(stdout) as Record<string, string>
    expect(
      Object.values(kinds).every((k) => k === 'function'),
      JSON.stringify(kinds),
    ).toBe(true)
    expect(Object.keys(kinds)).toHaveLength(8)
  }, 60_000)

  test('loads with require() (require of ESM, Node 20.19 and later)', async () => {
    writeFileSync(
      join(consumer, 'cjs.cjs'),
      "const lc = require('leasecron'); console.log(typeof lc.leaseCoordinator, typeof new lc.MemoryStore().acquire)",
    )
    const { stdout } = await sh(process.execPath, ['cjs.cjs'], consumer)
    expect(stdout.trim()).toBe('function function')
  }, 60_000)

  test('runs the leasecron bin with a TypeScript configuration, dev dependencies omitted', async () => {
    writeFileSync(
      join(consumer, 'worker.config.ts'),
      [
        "import { defineLease, defineNet, integerOption, type WorkerFileConfig } from 'leasecron'",
        "const lease = defineLease('my-net', 'one replica runs my net')",
        'const count: number = 2',
        'const config: WorkerFileConfig = {',
        '  nets: [defineNet({ name: "my-net", lease: lease.name, schedule: "*/5 * * * *", description: "mine",',
        '    options: { SIZE: integerOption(count, { min: 1, max: 9 }) }, setup: () => undefined,',
        '    term: () => async ({ log }) => log.info({}, "my pass") })],',
        '  leases: [lease],',
        '}',
        'export default config',
      ].join('\n'),
    )
    const bin = join(consumer, 'node_modules', '.bin', 'leasecron')
    const { stdout } = await sh(bin, ['config', '--config', './worker.config.ts'], consumer, {
      // Production never falls back to the sandbox silently; asking for it is how a demo runs there.
      LEASECRON_FORGE: 'sandbox',
    })
    const shown = JSON.parse(stdout) as { netPrefixes: string[] }
    expect(shown.netPrefixes).toEqual(['LEASECRON_NET_MY_NET_'])
  }, 120_000)

  test('gives tsc the declarations for a consumer file', async () => {
    await sh(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund'], consumer)
    writeFileSync(
      join(consumer, 'consumer.ts'),
      [
        "import { leaseCoordinator, MemoryStore, type LeaseStore } from 'leasecron'",
        "import { type OnePass, runOnePass, storeConformance } from 'leasecron/testing'",
        "import { type SandboxForge, startSandboxForge } from 'leasecron/sandbox'",
        'const store: LeaseStore = new MemoryStore()',
        'export const sandbox: Promise<SandboxForge> | undefined = process.env.NEVER ? startSandboxForge() : undefined',
        'const coordinator = leaseCoordinator({ store })',
        'export const owner: string = coordinator.owner',
        'export const suite: typeof storeConformance = storeConformance',
        'export const onePass: (...args: Parameters<typeof runOnePass>) => Promise<OnePass> = runOnePass',
        '// @ts-expect-error a coordinator needs a store: this line type-checks only if the types are missing',
        'leaseCoordinator({})',
      ].join('\n'),
    )
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    )
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    const result = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer).catch(
      (error: { stdout?: string }) => ({ stdout: `FAILED ${error.stdout ?? ''}` }),
    )
    expect(result.stdout).toBe('')
  }, 180_000)

  test('runs the store conformance suite from leasecron/testing under vitest with one call', async () => {
    writeFileSync(
      join(consumer, 'memory-store.test.ts'),
      [
        "import { MemoryStore } from 'leasecron'",
        "import { storeConformance } from 'leasecron/testing'",
        '',
        "storeConformance('MemoryStore', () => new MemoryStore())",
      ].join('\n'),
    )
    const vitest = join(consumer, 'node_modules', 'vitest', 'vitest.mjs')
    const { stdout } = await sh(
      process.execPath,
      [vitest, 'run', '--reporter=json', 'memory-store.test.ts'],
      consumer,
    )
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      numPassedTests: number
      numFailedTests: number
    }
    expect(report.numFailedTests).toBe(0)
    expect(report.numPassedTests, 'the suite registered too few tests').toBeGreaterThan(10)
  }, 180_000)

  test('runs a net author’s first test (runOnePass against the sandbox) from leasecron/testing under vitest', async () => {
    writeFileSync(
      join(consumer, 'my-net.test.ts'),
      [
        "import { defineLease, defineNet } from 'leasecron'",
        "import { startSandboxForge } from 'leasecron/sandbox'",
        "import { runOnePass } from 'leasecron/testing'",
        "import { expect, test } from 'vitest'",
        '',
        "const lease = defineLease('my-net', 'one replica runs my net')",
        'const myNet = defineNet({ name: "my-net", lease: lease.name, schedule: "*/5 * * * *", description: "mine",',
        '  options: {}, setup: () => undefined,',
        '  term: () => async ({ forge }) => { await forge.request("GET /installation/repositories") } })',
        '',
        "test('my net runs one pass against the sandbox', async () => {",
        '  const sandbox = await startSandboxForge()',
        '  const run = await runOnePass(myNet, { forge: sandbox })',
        "  expect(run.record).toMatchObject({ outcome: 'ok', requests: { 'my-net': 1 } })",
        '  await sandbox.close()',
        '})',
      ].join('\n'),
    )
    const vitest = join(consumer, 'node_modules', 'vitest', 'vitest.mjs')
    const { stdout } = await sh(
      process.execPath,
      [vitest, 'run', '--reporter=json', 'my-net.test.ts'],
      consumer,
    )
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      numPassedTests: number
      numFailedTests: number
    }
    expect(report, 'a net author’s first test does not pass against the packed package').toMatchObject({
      numPassedTests: 1,
      numFailedTests: 0,
    })
  }, 180_000)
})
