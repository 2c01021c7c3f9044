import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ForgeConfigError } from '../../src/forge/forge-config-error.js'
import { hasGitHubAppEnv, parseForgeEnv } from '../../src/config/forge-env.js'
import { checkForgeConfig } from '../../src/forge/forge-config.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'

const pkcs1 = generateAppKeyPair('pkcs1').privateKey
const pkcs8 = generateAppKeyPair('pkcs8').privateKey
const keyBody = (pem: string) => pem.split('\n')[2] as string

describe('parseForgeEnv', () => {
  it('accepts a PKCS#1 key with literal \\n and defaults the API URL', () => {
    const result = parseForgeEnv({
      GITHUB_APP_ID: '123',
      GITHUB_INSTALLATION_ID: ' 456 ',
      GITHUB_APP_PRIVATE_KEY: pkcs1.trim().replace(/\n/g, '\\n'),
    })
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.config).toMatchObject({ appId: 123, installationId: 456, apiUrl: 'https://api.github.com' })
    expect(result.config?.privateKey).toBe(`${pkcs1.trim()}\n`)
  })

  it('reads a PKCS#8 key from GITHUB_APP_PRIVATE_KEY_FILE and strips a trailing slash from the URL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'forge-config-'))
    const file = join(dir, 'app.pem')
    writeFileSync(file, pkcs8)
    const result = parseForgeEnv({
      GITHUB_APP_ID: '1',
      GITHUB_INSTALLATION_ID: '2',
      GITHUB_APP_PRIVATE_KEY_FILE: file,
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
    })
    expect(result).toMatchObject({ ok: true, config: { apiUrl: 'https://ghe.example.com/api/v3' } })
  })

  it('names every bad variable at once and never echoes the key', () => {
    const brokenKey = pkcs1.replace(keyBody(pkcs1), 'A'.repeat(64))
    const result = parseForgeEnv({
      GITHUB_APP_ID: '12a',
      GITHUB_INSTALLATION_ID: '-3',
      GITHUB_APP_PRIVATE_KEY: brokenKey,
      GITHUB_API_URL: 'ftp://nope',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors.map((e) => e.variable).sort()).toEqual([
      'GITHUB_API_URL',
      'GITHUB_APP_ID',
      'GITHUB_APP_PRIVATE_KEY',
      'GITHUB_INSTALLATION_ID',
    ])
    const keyError = result.errors.find((e) => e.variable === 'GITHUB_APP_PRIVATE_KEY')!
    expect(keyError.value).toBeUndefined()
    expect(keyError.expected).toMatch(/PEM RSA private key/)
    expect(JSON.stringify(result.errors)).not.toContain('AAAAAAAA')
    expect(result.errors.find((e) => e.variable === 'GITHUB_APP_ID')).toMatchObject({ value: '12a' })
  })

  it('refuses a non-PEM value and a non-RSA key without quoting them', () => {
    const ec = 'not a key at all: s3cr3t-value'
    const result = parseForgeEnv({
      GITHUB_APP_ID: '1',
      GITHUB_INSTALLATION_ID: '2',
      GITHUB_APP_PRIVATE_KEY: ec,
    })
    expect(result.ok).toBe(false)
    expect(JSON.stringify(result)).not.toContain('s3cr3t')
  })

  it('reports missing variables and an unreadable key file by name', () => {
    const missing = parseForgeEnv({})
    expect(missing.ok).toBe(false)
    if (!missing.ok) {
      expect(missing.errors.map((e) => e.variable).sort()).toEqual([
        'GITHUB_APP_ID',
        'GITHUB_APP_PRIVATE_KEY',
        'GITHUB_INSTALLATION_ID',
      ])
    }
    const unreadable = parseForgeEnv({
      GITHUB_APP_ID: '1',
      GITHUB_INSTALLATION_ID: '2',
      GITHUB_APP_PRIVATE_KEY_FILE: '/nonexistent/app.pem',
    })
    expect(unreadable).toMatchObject({
      ok: false,
      errors: [{ variable: 'GITHUB_APP_PRIVATE_KEY_FILE', value: '/nonexistent/app.pem' }],
    })
    const both = parseForgeEnv({
      GITHUB_APP_ID: '1',
      GITHUB_INSTALLATION_ID: '2',
      GITHUB_APP_PRIVATE_KEY: pkcs1,
      GITHUB_APP_PRIVATE_KEY_FILE: '/tmp/x.pem',
    })
    expect(both).toMatchObject({ ok: false, errors: [{ variable: 'GITHUB_APP_PRIVATE_KEY' }] })
  })
})

describe('hasGitHubAppEnv', () => {
  it('is false with no App variable and true with any one of them', () => {
    expect(hasGitHubAppEnv({ GITHUB_API_URL: 'https://x.example', PATH: '/bin' })).toBe(false)
    expect(hasGitHubAppEnv({ GITHUB_APP_ID: '  ' })).toBe(false)
    expect(hasGitHubAppEnv({ GITHUB_INSTALLATION_ID: '7' })).toBe(true)
    expect(hasGitHubAppEnv({ GITHUB_APP_PRIVATE_KEY_FILE: '/k.pem' })).toBe(true)
  })
})

describe('checkForgeConfig', () => {
  it('throws ForgeConfigError naming the field, without the key', () => {
    const bad = pkcs8.replace(keyBody(pkcs8), 'B'.repeat(64))
    let caught: unknown
    try {
      checkForgeConfig({ appId: 1, installationId: 2, apiUrl: 'http://127.0.0.1:1', privateKey: bad })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ForgeConfigError)
    const error = caught as ForgeConfigError
    expect(error.code).toBe('FORGE_CONFIG_INVALID')
    expect(error.name).toBe('ForgeConfigError')
    expect(error.message).toContain('config.privateKey')
    expect(error.message).toContain('createForge')
    expect(error.message).not.toContain('BBBBBBBB')
  })
})

describe('private keys that are not usable', () => {
  const opensshKey = [
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
    'QyNTUxOQAAACBzZWNyZXQtb3BlbnNzaC1rZXktYm9keS1mb3ItdGhlLXRlc3Q=',
    '-----END OPENSSH PRIVATE KEY-----',
  ].join('\n')
  it.each([
    ['an OpenSSH key', opensshKey, 'c2VjcmV0LW9wZW5zc2g'],
    ['a truncated PEM', pkcs1.slice(0, Math.floor(pkcs1.length / 2)), keyBody(pkcs1).slice(0, 24)],
    [
      'a PEM without its footer',
      pkcs1.replace(/-----END RSA PRIVATE KEY-----\s*$/, ''),
      keyBody(pkcs1).slice(0, 24),
    ],
    ['a public key', generateAppKeyPair('pkcs1').publicKey, 'MII'],
  ])('refuses %s, naming the variable and what was expected, without quoting it', (_what, key, fragment) => {
    const result = parseForgeEnv({
      GITHUB_APP_ID: '1',
      GITHUB_INSTALLATION_ID: '2',
      GITHUB_APP_PRIVATE_KEY: key,
    })
    expect(result.ok, 'an unusable key was accepted').toBe(false)
    if (result.ok) return
    const issue = result.errors.find((e) => e.variable === 'GITHUB_APP_PRIVATE_KEY')
    expect(issue?.expected).toMatch(/PEM RSA private key/)
    expect(JSON.stringify(result.errors)).not.toContain(fragment)
  })
})
