/**
 * The bundle hands the Mongo driver a `tls` and prom-client an `https` that load on first use
 * (scripts/bundle-shims/lazy-builtin.cjs): a worker whose MONGO_URI has no TLS never loads Node's TLS layer
 * (~5 MiB of RSS on Node 24). The shim must be the real module to whoever reads it, and the built worker
 * must not load `tls` while it runs idle against a server without TLS.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import tls from 'node:tls'
import { describe, expect, test } from 'vitest'

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

  test('is what the bundle gives the driver for tls and prom-client for https', () => {
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
  })
})
