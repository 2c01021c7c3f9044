/**
 * The one scrubbing path (config/scrub.ts): each shape of secret it removes, alone and inside JSON, and
 * the logger writing through it.
 */
import { generateKeyPairSync } from 'node:crypto'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/observe/logger.js'
import type { Logger } from '../../src/logger.js'
import { forgetSecrets, rememberSecrets, scrubbedErrorMessage, scrubSecrets } from '../../src/config/scrub.js'
import { isSecretParameter } from '../../src/secret-parameter.js'

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string
const PEM_BODY_LINE = PEM.split('\n')[1]!

describe('scrubSecrets', () => {
  it.each([
    ['a whole PEM block', `key: ${PEM} trailing`, PEM_BODY_LINE],
    ['a PEM block on one line with literal \\n', `key ${PEM.replace(/\n/g, '\\n')}`, PEM_BODY_LINE],
    ['a PEM block cut before its END', `got ${PEM.slice(0, 200)}`, PEM_BODY_LINE.slice(0, 40)],
    [
      'a certificate block',
      '-----BEGIN CERTIFICATE-----\nMIIBcertbody\n-----END CERTIFICATE-----',
      'MIIBcertbody',
    ],
    ['URI credentials', 'connect mongodb://alice:hunter2pass@db.example:27017/x', 'hunter2pass'],
    ['a bare user token in a URI', 'fetch https://ghp_abcdefabcdefabcdefabcdef@github.com/x', 'ghp_abcdef'],
    ['MONGO_URI password=', 'mongodb://db/?authSource=admin&password=s3cretvalue', 's3cretvalue'],
    ['MONGO_URI proxyPassword=', 'mongodb://db/?proxyHost=p&proxyPassword=proxys3cret', 'proxys3cret'],
    [
      'MONGO_URI tlsCertificateKeyFilePassword=',
      'mongodb://db/?tls=true&tlsCertificateKeyFilePassword=keyfilepw1',
      'keyfilepw1',
    ],
    [
      'MONGO_URI authMechanismProperties (an AWS session token)',
      'mongodb://db/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:FQoGZXIvYXdzsessiontok',
      'FQoGZXIvYXdzsessiontok',
    ],
    ['a bearer credential', 'authorization: Bearer abcdefgh12345678', 'abcdefgh12345678'],
    ['a GitHub token', 'token ghs_0123456789abcdefghijklmn', 'ghs_0123456789abcdefghijklmn'],
    ['a JWT', 'jwt eyJhbGciOiJSUzI1.eyJpc3MiOiIxMjM0NSJ9.c2lnbmF0dXJlLXBhcnQ', 'eyJpc3MiOiIxMjM0NSJ9'],
    ['an api_key= in an error’s text', 'Error: 401 from upstream (api_key=k3yvalue9)', 'k3yvalue9'],
    ['a sig= in an error’s text', 'fetch failed: GET /blob?sv=2024&sig=s1gnatur3val', 's1gnatur3val'],
    ['a token= in an error’s text', 'refused token=t0kenvalue7 for the hook', 't0kenvalue7'],
    ['a URL-encoded secret name', 'GET /x?auth%5Btoken%5D=encod3dtok', 'encod3dtok'],
  ])('removes %s', (_shape, text, secret) => {
    const out = scrubSecrets(text)
    expect(out, `the secret is still in: ${out}`).not.toContain(secret)
    expect(scrubSecrets(JSON.stringify({ text })), 'the secret survives inside JSON').not.toContain(secret)
  })

  it('removes the value of a secret variable wherever it appears, also JSON-escaped', () => {
    const value = 'whsec_plain-words-no-shape "quoted"\nsecond line'
    rememberSecrets({ LEASECRON_NET_X_WEBHOOK_SECRET: value, LEASECRON_NET_X_DEPTH: '12345678' })
    expect(scrubSecrets(`payload signed with ${value}`)).toBe('payload signed with [redacted]')
    expect(scrubSecrets(JSON.stringify({ value }))).not.toContain('plain-words-no-shape')
    expect(scrubSecrets('depth 12345678'), 'a variable that is not secret was masked').toBe('depth 12345678')
  })

  it('leaves text without secrets as it is', () => {
    const text = 'connection refused at 127.0.0.1:27017 (mongodb://db.example/leasecron?retryWrites=true)'
    expect(scrubSecrets(text)).toBe(text)
  })

  // The request spans' url.full (forge/client/request-span.ts) and every other text judge a name by one rule.
  it.each([
    'api_key',
    'sig',
    'Signature',
    'X-Amz-Signature',
    'access_token',
    'client_secret',
    'password',
    'code',
  ])('treats %s= as a credential both in a span’s URL and in free text', (name) => {
    expect(isSecretParameter(name)).toBe(true)
    expect(scrubbedErrorMessage(new Error(`upstream said no: ${name}=v4lu3seen`))).toBe(
      `Error: upstream said no: ${name}=[redacted]`,
    )
  })

  it.each(['retryWrites', 'page', 'per_page', 'sv', 'signal'])('leaves %s= as it is', (name) => {
    expect(isSecretParameter(name)).toBe(false)
    expect(scrubSecrets(`GET /x?${name}=v4lu3seen`)).toBe(`GET /x?${name}=v4lu3seen`)
  })

  it('scrubs an error’s message with its name', () => {
    expect(scrubbedErrorMessage(new TypeError(`bad key ${PEM.trim()}`))).toBe(
      'TypeError: bad key [redacted PEM block]',
    )
  })
})

describe('forgetSecrets', () => {
  it('leaves a value a forgotten configuration held as a secret unmasked, as a fresh process would', () => {
    rememberSecrets({ NIGHTLY_PING_URL: 'just some words' })
    expect(scrubSecrets('said: just some words')).toBe('said: [redacted]')
    forgetSecrets()
    expect(scrubSecrets('said: just some words'), 'a later configuration’s ordinary text stays masked').toBe(
      'said: just some words',
    )
  })
})

describe('the logger', () => {
  it('writes no secret in a message, a field or a child’s bound fields', () => {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString())
        done()
      },
    })
    const log = createLogger({ destination, pretty: false }).child({
      url: 'https://bob:childpassword@ghe.example/api/v3',
    })
    log.warn({ uri: 'mongodb://db/?proxyPassword=fieldsecret1', cut: PEM.slice(0, 300) }, `key ${PEM}`)
    const text = lines.join('')
    expect(text).toContain('[redacted PEM block]')
    expect(() => JSON.parse(text), 'scrubbing broke the JSON line').not.toThrow()
    for (const secret of ['childpassword', 'fieldsecret1', PEM_BODY_LINE])
      expect(text, `${secret} reached the log line`).not.toContain(secret)
  })
})

describe('the logger’s secret fields', () => {
  function logged(write: (log: Logger) => void, base?: Record<string, unknown>): Record<string, unknown> {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString())
        done()
      },
    })
    write(createLogger({ destination, pretty: false, ...(base ? { base } : {}) }))
    expect(lines, 'one line was written').toHaveLength(1)
    return JSON.parse(lines[0]!) as Record<string, unknown>
  }

  it('writes a field named as a secret as [redacted], whatever it holds and however deep', () => {
    const line = logged((log) =>
      log.warn(
        {
          token: 'tok-1',
          privateKey: 'pk-2',
          jwt: { header: 'h', payload: 'p' },
          request: { headers: { authorization: 'Bearer abc-3', accept: 'json' } },
          db: { settings: { password: 4, host: 'db' } },
          mongoUri: 'mongodb://db/',
          tokens: 12,
          lease: 'sweeper',
        },
        'with secrets',
      ),
    )
    expect(line).toMatchObject({
      token: '[redacted]',
      privateKey: '[redacted]',
      jwt: '[redacted]',
      request: { headers: { authorization: '[redacted]', accept: 'json' } },
      db: { settings: { password: '[redacted]', host: 'db' } },
      mongoUri: '[redacted]',
      tokens: 12,
      lease: 'sweeper',
    })
  })

  it('writes a child’s and a grandchild’s bound secret fields as [redacted]', () => {
    const line = logged((log) =>
      log
        .child({ password: 'child-pass-5', net: 'sweeper' })
        .child({ auth: { token: 'grandchild-tok-6' }, pass: 3 })
        .info({}, 'bound'),
    )
    expect(line).toMatchObject({
      password: '[redacted]',
      net: 'sweeper',
      auth: { token: '[redacted]' },
      pass: 3,
    })
    expect(JSON.stringify(line)).not.toMatch(/child-pass-5|grandchild-tok-6/)
  })

  it('writes a secret field of the base bindings as [redacted]', () => {
    const line = logged((log) => log.info({}, 'based'), { jwt: 'base-jwt-7', service: 'leasecron' })
    expect(line).toMatchObject({ jwt: '[redacted]', service: 'leasecron' })
  })
})
