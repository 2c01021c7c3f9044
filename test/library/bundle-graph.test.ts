/**
 * What each bundled entry loads before it runs, read from the bundler's own record of the bundle
 * (dist/bundle-meta.json, written by scripts/bundle.mjs): the modules a process pays for at start-up are
 * those its entry imports statically, directly or through chunks. Things loaded on demand (`import()`)
 * are fine; a static path to them is the regression this guards against (docs/decisions/0003-load-only-what-a-command-uses.md).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, inject, test } from 'vitest'

interface Output {
  entryPoint?: string
  inputs: Record<string, unknown>
  imports: { path: string; kind: string; external?: boolean }[]
}

function readOutputs(): Record<string, Output> {
  expect(inject('buildError'), 'dist/ did not build').toBeUndefined()
  const meta = fileURLToPath(new URL('../../dist/bundle-meta.json', import.meta.url))
  return (JSON.parse(readFileSync(meta, 'utf8')) as { outputs: Record<string, Output> }).outputs
}

/** The inputs an output and everything it imports statically hold: what loading it loads. */
function staticInputs(outputs: Record<string, Output>, start: string): string[] {
  const seen = new Set<string>()
  const queue = [start]
  while (queue.length > 0) {
    const path = queue.pop() as string
    if (seen.has(path)) continue
    seen.add(path)
    const output = outputs[path]
    if (!output) throw new Error(`the bundle has no output ${path}`)
    for (const i of output.imports)
      if (i.kind === 'import-statement' && !i.external && outputs[i.path]) queue.push(i.path)
  }
  return [...seen].flatMap((p) => Object.keys(outputs[p]!.inputs))
}

/** The output a source module became when it is loaded on demand (a dynamic import's own chunk). */
function outputOf(outputs: Record<string, Output>, entryPoint: string): string {
  const found = Object.entries(outputs).find(([, o]) => o.entryPoint === entryPoint)
  if (!found) throw new Error(`no output has the entry point ${entryPoint}`)
  return found[0]
}

const driver = (inputs: string[]) => inputs.filter((i) => /node_modules\/(mongodb|bson)\//.test(i))
const forgeClient = (inputs: string[]) => inputs.filter((i) => /node_modules\/(@octokit\/|undici\/)/.test(i))
const sandbox = (inputs: string[]) => inputs.filter((i) => i.startsWith('dist/src/sandbox/'))

describe('the bundle loads only what a path uses', () => {
  test('importing leasecron loads neither the Mongo driver (users bring their own) nor the sandbox', () => {
    const inputs = staticInputs(readOutputs(), 'dist/bundle/index.js')
    expect(inputs, 'the bundle lost the public API').toContain('dist/src/lease/run.js')
    expect(driver(inputs), 'every import of leasecron would load a second Mongo driver').toEqual([])
    expect(sandbox(inputs), 'every import of leasecron would load the sandbox forge').toEqual([])
  })

  test('importing leasecron (as every worker.config does) loads neither the worker, its HTTP server, admin API nor status page: createWorker loads them on start()', () => {
    const outputs = readOutputs()
    const inputs = staticInputs(outputs, 'dist/bundle/index.js')
    expect(inputs, 'the public createWorker is not the deferred one').toContain(
      'dist/src/worker/lazy-worker.js',
    )
    const worker = inputs.filter((i) =>
      /^dist\/src\/worker\/(worker|http|scheduler|metrics|pass-span|status\/.*|admin\/.*)\.js$/.test(i),
    )
    expect(
      worker,
      'a configuration module importing leasecron for defineNet would compile the worker before the CLI reads the environment',
    ).toEqual([])
    const worked = staticInputs(outputs, outputOf(outputs, 'dist/src/worker/worker.js'))
    expect(worked, 'the deferred createWorker no longer reaches the worker').toContain(
      'dist/src/worker/http.js',
    )
  })

  test('a worker loads its status page only when the page is first asked for', () => {
    const outputs = readOutputs()
    const inputs = staticInputs(outputs, outputOf(outputs, 'dist/src/worker/worker.js'))
    expect(inputs).toContain('dist/src/worker/status/status-routes.js')
    expect(
      inputs.filter((i) => /status\/(render-status-page|page-assets|lane-chart)\.js$/.test(i)),
      'every worker would compile the status page before its first acquire',
    ).toEqual([])
    const page = staticInputs(outputs, outputOf(outputs, 'dist/src/worker/status/render-status-page.js'))
    expect(page, 'the page chunk lost its assets').toContain('dist/src/worker/status/page-assets.js')
  })

  test('the CLI starts without the driver, the sandbox or the worker until its command needs them', () => {
    const outputs = readOutputs()
    // The bin enables the compile cache, then imports the CLI at once: both are what every command loads.
    const inputs = [
      ...staticInputs(outputs, 'dist/bundle/leasecron.js'),
      ...staticInputs(outputs, outputOf(outputs, 'dist/src/cli/cli.js')),
    ]
    expect(inputs).toContain('dist/src/cli/cli.js')
    expect(driver(inputs), '`leasecron config` and `--help` would pay for the driver').toEqual([])
    expect(sandbox(inputs), 'every command would load the sandbox forge').toEqual([])
    expect(inputs, '`once` and `status` would load the whole worker').not.toContain(
      'dist/src/worker/worker.js',
    )
  })

  test('importing leasecron/serverless loads neither the driver, the sandbox nor the worker: a cold function pays for them only when its trigger needs them', () => {
    const inputs = staticInputs(readOutputs(), 'dist/bundle/serverless.js')
    expect(inputs, 'the serverless entry does not run the once path').toContain('dist/src/term/one-slot.js')
    expect(driver(inputs), 'a function on the memory store would load the Mongo driver').toEqual([])
    expect(sandbox(inputs), 'a function that talks to GitHub would load the sandbox forge').toEqual([])
    expect(inputs, 'a function would load the whole worker').not.toContain('dist/src/worker/worker.js')
  })

  test('`--version` and `--help` load none of the configuration readers (zod, the cron libraries)', () => {
    const outputs = readOutputs()
    const inputs = [
      ...staticInputs(outputs, 'dist/bundle/leasecron.js'),
      ...staticInputs(outputs, outputOf(outputs, 'dist/src/cli/cli.js')),
    ]
    expect(
      inputs.filter((i) =>
        /node_modules\/(zod|node-cron|cron-parser|luxon|mongodb-connection-string-url)\//.test(i),
      ),
      '`leasecron --version` would compile and evaluate what only reading the configuration needs',
    ).toEqual([])
    expect(inputs, '`--version` would read the configuration').not.toContain('dist/src/config/load-config.js')
  })

  test('carries neither the whatwg-url package nor zod’s other languages (Node’s URL and English serve)', () => {
    const every = [...new Set(Object.values(readOutputs()).flatMap((o) => Object.keys(o.inputs)))]
    expect(
      every.filter((i) => /node_modules\/(whatwg-url|tr46|webidl-conversions)\//.test(i)),
      'every command that reads MONGO_URI would compile tr46’s Unicode tables again',
    ).toEqual([])
    expect(
      every.filter((i) => i.includes('node_modules/zod/v4/locales/')),
      'every command would compile zod’s messages in forty languages',
    ).toEqual(['node_modules/zod/v4/locales/en.js'])
  })

  test('importing leasecron compiles only the part of zod its schemas use', () => {
    // `import * as z from 'zod'` lets the bundler drop the schema kinds no one calls; `import { z }`
    // made it build zod's whole namespace object, and compile all of zod, 281 KiB, in every process.
    const outputs = readOutputs()
    const zodBytes = new Map<string, number>()
    const seen = new Set<string>()
    const queue = ['dist/bundle/index.js']
    while (queue.length > 0) {
      const path = queue.pop() as string
      if (seen.has(path)) continue
      seen.add(path)
      const output = outputs[path]!
      for (const [input, { bytesInOutput }] of Object.entries(
        output.inputs as Record<string, { bytesInOutput: number }>,
      ))
        if (input.startsWith('node_modules/zod/')) zodBytes.set(input, bytesInOutput)
      for (const i of output.imports) if (i.kind === 'import-statement' && outputs[i.path]) queue.push(i.path)
    }
    const kib = [...zodBytes.values()].reduce((a, b) => a + b, 0) / 1024
    expect(kib, 'every process importing leasecron would compile all of zod again').toBeLessThan(180)
  })

  test('a worker that talks to GitHub never loads the sandbox, and loads the driver only to connect', () => {
    const outputs = readOutputs()
    const inputs = staticInputs(outputs, outputOf(outputs, 'dist/src/worker/worker.js'))
    expect(inputs).toContain('dist/src/term/net-runner.js')
    expect(sandbox(inputs), 'a production worker would carry the sandbox forge in memory').toEqual([])
    expect(driver(inputs), 'a worker on the in-memory store would load the Mongo driver').toEqual([])
    const connection = staticInputs(outputs, outputOf(outputs, 'dist/src/worker/mongo-connection.js'))
    expect(driver(connection).length, 'the driver is not where the connection loads it').toBeGreaterThan(0)
  })

  test('carries one copy of @opentelemetry/api, the CommonJS build prom-client requires, and the CLI starts without it', () => {
    const outputs = readOutputs()
    const api = [...new Set(Object.values(outputs).flatMap((o) => Object.keys(o.inputs)))].filter((i) =>
      i.includes('node_modules/@opentelemetry/api/'),
    )
    expect(api, 'tracing no longer reaches @opentelemetry/api through the bundle').toContain(
      'node_modules/@opentelemetry/api/build/src/index.js',
    )
    expect(
      api.filter((i) => !i.startsWith('node_modules/@opentelemetry/api/build/src/')),
      'a second copy of the OpenTelemetry API was bundled (its ES build beside the CommonJS one)',
    ).toEqual([])
    const cli = staticInputs(outputs, 'dist/bundle/leasecron.js')
    expect(
      cli.filter((i) => i.includes('@opentelemetry')),
      '`leasecron --version` would load the API',
    ).toEqual([])
  })

  test('bundles Octokit and undici into the forge client’s chunk, which only a forge’s first request loads', () => {
    const outputs = readOutputs()
    const external = Object.entries(outputs).flatMap(([path, o]) =>
      o.imports
        .filter((i) => i.external && /^(@octokit\/|undici$)/.test(i.path))
        .map((i) => `${path} → ${i.path}`),
    )
    expect(external, 'a consumer would have to install Octokit or undici beside the bundle').toEqual([])
    const client = staticInputs(outputs, outputOf(outputs, 'dist/src/forge/client/forge-client.js'))
    for (const piece of [
      '@octokit/core/',
      '@octokit/auth-app/',
      '@octokit/plugin-retry/',
      '@octokit/plugin-throttling/',
      'undici/',
    ])
      expect(
        client.some((i) => i.includes(`node_modules/${piece}`)),
        `the forge client's chunk lacks ${piece}`,
      ).toBe(true)
    const everyPathBeforeTheForge = {
      'import leasecron': staticInputs(outputs, 'dist/bundle/index.js'),
      '`leasecron --version` and every command': [
        ...staticInputs(outputs, 'dist/bundle/leasecron.js'),
        ...staticInputs(outputs, outputOf(outputs, 'dist/src/cli/cli.js')),
      ],
      'a worker before its first pass': staticInputs(outputs, outputOf(outputs, 'dist/src/worker/worker.js')),
      'leasecron/sandbox': staticInputs(outputs, 'dist/bundle/sandbox.js'),
      'leasecron/testing': staticInputs(outputs, 'dist/bundle/testing.js'),
      'leasecron/serverless before its first trigger': staticInputs(outputs, 'dist/bundle/serverless.js'),
    }
    for (const [path, inputs] of Object.entries(everyPathBeforeTheForge)) {
      expect(forgeClient(inputs), `${path} would load Octokit or undici before any forge request`).toEqual([])
      expect(inputs, `${path} would load the forge client before any forge request`).not.toContain(
        'dist/src/forge/client/forge-client.js',
      )
    }
  })
})
