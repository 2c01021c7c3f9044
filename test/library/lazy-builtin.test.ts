/**
 * The bundle hands the Mongo driver a `tls` and prom-client an `https` that load on first use
 * (scripts/bundle-shims/lazy-builtin.cjs): a worker whose MONGO_URI has no TLS never loads Node's TLS layer
 * (~5 MiB of RSS on Node 24). The shim must be the real module to whoever reads it, and the built worker
 * must not load `tls` while it runs idle against a server without TLS.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { generateKeyPairSync } from 'node:crypto'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'
import { describe, expect, test } from 'vitest'
import { bundledIdleOnce } from '../support/bundled-idle-once.js'

const require = createRequire(import.meta.url)
const shimPath = require.resolve('../../scripts/bundle-shims/lazy-builtin.cjs')

describe('the lazy built-in shim', () => {
  test('answers every read with the real module: the function the driver calls, `in`, and the keys', () => {
    const lazy = require(shimPath)(() => tls) as typeof tls
    expect(lazy.connect, 'a TLS connection would not reach Node’s tls.connect').toBe(tls.connect)
    expect('createSecureContext' in lazy).toBe(true)
    expect(Object.keys(lazy)).toEqual(Object.keys(tls))
  })

  test('loads nothing until the first read', () => {
    const script = `
      const lazy = require(${JSON.stringify(shimPath)})(() => require('node:tls'))
      const loaded = () => process.moduleLoadList.includes('NativeModule tls')
      const before = loaded(); void lazy.connect
      console.log(JSON.stringify({ before, after: loaded() }))`
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
    expect(out, 'the shim would load tls when the driver is loaded, not when it connects').toEqual({
      before: false,
      after: true,
    })
  })

  test('is what the bundle gives the driver, prom-client and node-cron for the built-ins they seldom call', () => {
    const meta = JSON.parse(readFileSync('dist/bundle-meta.json', 'utf8')) as {
      inputs: Record<string, { imports: Array<{ path: string; original?: string }> }>
    }
    const importsOf = (prefix: string, builtin: string) =>
      Object.entries(meta.inputs)
        .filter(([path]) => path.startsWith(prefix))
        .flatMap(([, input]) => input.imports)
        .filter((i) => i.original === builtin || i.original === `node:${builtin}`)
        .map((i) => i.path)
    expect(importsOf('node_modules/mongodb/', 'tls').every((p) => p === 'lazy-builtin:tls')).toBe(true)
    expect(importsOf('node_modules/mongodb/', 'tls').length).toBeGreaterThan(0)
    expect(importsOf('node_modules/prom-client/', 'https')).toEqual(['lazy-builtin:https'])
    for (const builtin of ['dns', 'zlib', 'http']) {
      const paths = importsOf('node_modules/mongodb/', builtin)
      expect(
        paths.length,
        `the driver no longer imports ${builtin}: the list in scripts/bundle.mjs is stale`,
      ).toBeGreaterThan(0)
      expect(
        paths.every((p) => p === `lazy-builtin:${builtin}`),
        `the driver would load ${builtin} at every start`,
      ).toBe(true)
    }
    expect(importsOf('node_modules/prom-client/', 'http')).toEqual(['lazy-builtin:http'])
    expect(
      importsOf('node_modules/node-cron/', 'child_process'),
      'node-cron would load child_process (and dgram) at every start for a fork leasecron never asks for',
    ).toEqual(['lazy-builtin-esm:child_process'])
  })

  test('a `once` of a net that does nothing loads none of them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasecron-lazy-builtin-'))
    try {
      const report = join(dir, 'loaded.cjs')
      writeFileSync(
        report,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, process.moduleLoadList.join('\\n')))`,
      )
      // A GitHub App of its own, so that no sandbox forge (an HTTP server) starts; these nets never call it.
      const key = join(dir, 'app-key.pem')
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
      writeFileSync(key, privateKey.export({ type: 'pkcs1', format: 'pem' }))
      const run = bundledIdleOnce(['-r', report], 'lazy_builtin', {
        GITHUB_APP_ID: '1',
        GITHUB_INSTALLATION_ID: '2',
        GITHUB_APP_PRIVATE_KEY_FILE: key,
        GITHUB_API_URL: 'http://127.0.0.1:9',
      })
      expect(run.status, `leasecron once failed: ${run.stderr.slice(0, 500)}`).toBe(0)
      const loaded = readFileSync(join(dir, 'loaded.txt'), 'utf8').split('\n')
      const unwanted = ['tls', 'child_process', 'dgram', 'dns', 'http', 'https'].filter((b) =>
        loaded.includes(`NativeModule ${b}`),
      )
      expect(unwanted, 'every start would pay for loading these built-ins it never calls').toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
