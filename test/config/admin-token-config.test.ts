/**
 * LEASECRON_ADMIN_TOKEN in the configuration: unset leaves the admin API off; a short or spaced token is
 * refused naming the variable without echoing it (the worker exits 78); a good one is kept and shown
 * redacted by `config`.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/config/config-error.js'
import { loadConfig } from '../../src/config/load-config.js'
import { redactedConfig } from '../../src/config/redacted-config.js'
import { scrubSecrets } from '../../src/config/scrub.js'

const BASE = { LEASECRON_FORGE: 'sandbox' }

describe('LEASECRON_ADMIN_TOKEN', () => {
  it('leaves the admin API off when unset', () => {
    const loaded = loadConfig(BASE, [], [])
    expect(loaded.ok && loaded.config.adminToken).toBeUndefined()
    expect(loaded.ok && redactedConfig(loaded.config).adminApi).toBe('off')
  })

  it('refuses a token shorter than 16 characters or with a space, naming the variable and not its value', () => {
    for (const value of ['short-token-15c', 'a token with spaces in it']) {
      const loaded = loadConfig({ ...BASE, LEASECRON_ADMIN_TOKEN: value }, [], [])
      expect(loaded.ok, `${value} was accepted`).toBe(false)
      if (loaded.ok) return
      const error = new ConfigError(loaded.issues)
      expect(error.exitCode).toBe(78)
      expect(error.message).toContain(
        'LEASECRON_ADMIN_TOKEN: expected a token of at least 16 printable ASCII',
      )
      expect(loaded.issues[0]?.value, 'the refused token is echoed').toBeUndefined()
    }
  })

  it('keeps a good token, shows it redacted and scrubs it from any text', () => {
    const token = 'f0e1d2c3b4a5968778695a4b3c2d1e0f'
    const loaded = loadConfig({ ...BASE, LEASECRON_ADMIN_TOKEN: token }, [], [])
    expect(loaded.ok).toBe(true)
    if (!loaded.ok) return
    expect(loaded.config.adminToken).toBe(token)
    expect(JSON.stringify(redactedConfig(loaded.config))).not.toContain(token)
    expect(redactedConfig(loaded.config).adminApi).toMatch(/^on/)
    expect(scrubSecrets(`the token is ${token}`)).toBe('the token is [redacted]')
  })
})
