/**
 * The bundle hands mongodb-connection-string-url Node's own URL classes instead of the `whatwg-url`
 * package (scripts/bundle-shims/native-whatwg-url.cjs). The driver parses MONGO_URI through it, and so
 * does leasecron's own MONGO_URI check, so the package must read every connection string exactly as it
 * does with `whatwg-url`: here the package bundled with the shim, as scripts/bundle.mjs bundles it,
 * against the package as installed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

interface ConnectionStringLike {
  href: string
  toString(): string
  hosts: string[]
  username: string
  password: string
  pathname: string
  protocol: string
  isSRV: boolean
  searchParams: URLSearchParams
  redact(options?: object): ConnectionStringLike
  clone(): ConnectionStringLike
}
type ConnectionStringClass = new (uri: string, options?: object) => ConnectionStringLike

const real = createRequire(import.meta.url)('mongodb-connection-string-url') as {
  ConnectionString: ConnectionStringClass
}
let shimmed: { ConnectionString: ConnectionStringClass }
const dir = mkdtempSync(join(tmpdir(), 'leasecron-native-url-'))

beforeAll(async () => {
  const outfile = join(dir, 'connection-string.cjs')
  await build({
    entryPoints: [createRequire(import.meta.url).resolve('mongodb-connection-string-url')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    alias: { 'whatwg-url': resolve('scripts/bundle-shims/native-whatwg-url.cjs') },
    logLevel: 'silent',
  })
  shimmed = createRequire(pathToFileURL(outfile))(outfile)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const URIS = [
  'mongodb://127.0.0.1:27017/',
  'mongodb://localhost',
  'mongodb://u:p%40ss@h1:27017,h2:27018,h3/db?replicaSet=rs0&authSource=admin&w=majority',
  'mongodb+srv://user:pw@cluster0.example.net/leasecron?retryWrites=true&appName=x',
  'mongodb://[::1]:27017,[fe80::1%25eth0]:27018/?directConnection=false',
  'mongodb://h/?readPreference=secondaryPreferred&readPreferenceTags=dc:ny,rack:1&readPreferenceTags=',
  'mongodb://%2Ftmp%2Fmongodb-27017.sock/db',
  'mongodb://h/d%C3%A9b?authMechanismProperties=SERVICE_NAME:mongodb,CANONICALIZE_HOST_NAME:true',
  'mongodb://h/?ReplicaSet=rs&TLS=true&tlsCAFile=%2Fetc%2Fca.pem#frag',
  'mongodb://h:99999/',
  'mongodb://ünïcode.example/db',
]
const BAD = [
  'http://h/',
  'mongodb://',
  'mongodb://u@h/x?y',
  'mongodb+srv://a,b/',
  'mongodb://a:b:c@h/',
  'mongodb://h/ d',
]

function reading(Class: ConnectionStringClass, uri: string) {
  try {
    const c = new Class(uri)
    return {
      href: c.href,
      string: c.toString(),
      hosts: c.hosts,
      username: c.username,
      password: c.password,
      pathname: c.pathname,
      protocol: c.protocol,
      isSRV: c.isSRV,
      params: [...c.searchParams],
      caseInsensitive: [
        c.searchParams.get('replicaset'),
        c.searchParams.has('TLS'),
        c.searchParams.getAll('readpreferencetags'),
      ],
      redacted: c.redact().toString(),
      clone: c.clone().toString(),
    }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

describe('mongodb-connection-string-url on Node’s URL classes', () => {
  test('reads every connection string as it does with the whatwg-url package', () => {
    for (const uri of [...URIS, ...BAD])
      expect(reading(shimmed.ConnectionString, uri), `the driver would read ${uri} differently`).toEqual(
        reading(real.ConnectionString, uri),
      )
  })

  test('refuses what it refuses with the whatwg-url package, and accepts the rest', () => {
    const refused = (Class: ConnectionStringClass) => BAD.filter((uri) => 'error' in reading(Class, uri))
    expect(refused(real.ConnectionString).length, 'the refusals tested nothing').toBeGreaterThan(3)
    expect(refused(shimmed.ConnectionString)).toEqual(refused(real.ConnectionString))
    for (const uri of URIS.slice(0, 4)) expect('error' in reading(shimmed.ConnectionString, uri)).toBe(false)
  })

  test('keeps searchParams a working URLSearchParams that writes through to the string', () => {
    const c = new shimmed.ConnectionString('mongodb://h/db?w=1')
    c.searchParams.set('W', 'majority')
    c.searchParams.append('appName', 'leasecron')
    expect(c.toString()).toBe('mongodb://h/db?w=majority&appName=leasecron')
  })
})
