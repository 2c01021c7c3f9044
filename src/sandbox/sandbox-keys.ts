/**
 * Key pairs for a sandbox GitHub App, so `npm start` and tests need no real App. Not for production
 * keys: they live in memory only and are never persisted.
 */
import { generateKeyPairSync } from 'node:crypto'

/** A PEM key pair; `privateKey` in the requested format, `publicKey` as SPKI. */
export interface AppKeyPair {
  privateKey: string
  publicKey: string
}

/**
 * Generates a 2048-bit RSA key pair. `pkcs1` (default) gives `BEGIN RSA PRIVATE KEY` as GitHub hands
 * out; `pkcs8` gives `BEGIN PRIVATE KEY`. Synchronous, ~50-200 ms.
 */
export function generateAppKeyPair(format: 'pkcs1' | 'pkcs8' = 'pkcs1'): AppKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: format, format: 'pem' },
  })
  return { privateKey, publicKey }
}
