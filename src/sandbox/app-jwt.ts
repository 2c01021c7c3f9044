/**
 * Verification of a GitHub App's RS256 JSON Web Token, as GitHub does before minting an installation
 * token: signature by the App's public key, `iss` equal to the App id, and an `iat`/`exp` window of at
 * most ten minutes that contains now (with a minute of clock skew). Not a general JWT library.
 */
import { type KeyObject, verify } from 'node:crypto'

/** Why a JWT was refused, in GitHub's words where GitHub has some. */
export type AppJwtResult = { ok: true } | { ok: false; reason: string }

const SKEW_SECONDS = 60
const MAX_LIFETIME_SECONDS = 600

/** Checks `token` for App `appId` at `nowSeconds`; never throws. */
export function verifyAppJwt(
  token: string,
  publicKey: KeyObject,
  appId: number,
  nowSeconds: number,
): AppJwtResult {
  const parts = token.split('.')
  if (parts.length !== 3) return { ok: false, reason: 'A JSON web token could not be decoded' }
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string]
  let header: { alg?: unknown }
  let payload: { iss?: unknown; iat?: unknown; exp?: unknown }
  try {
    header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'))
    payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'))
  } catch {
    return { ok: false, reason: 'A JSON web token could not be decoded' }
  }
  if (header.alg !== 'RS256') return { ok: false, reason: "'alg' must be RS256" }
  const signed = Buffer.from(`${headerPart}.${payloadPart}`)
  if (!verify('sha256', signed, publicKey, Buffer.from(signaturePart, 'base64url'))) {
    return { ok: false, reason: "A JSON web token's signature could not be verified" }
  }
  if (String(payload.iss) !== String(appId))
    return { ok: false, reason: "'Issuer' claim ('iss') must be the App id" }
  if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') {
    return { ok: false, reason: "'Issued at' ('iat') and 'Expiration time' ('exp') claims are required" }
  }
  if (payload.iat > nowSeconds + SKEW_SECONDS)
    return {
      ok: false,
      reason: "'Issued at' claim ('iat') must be an Integer representing a time in the past",
    }
  if (payload.exp <= nowSeconds)
    return {
      ok: false,
      reason:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    }
  if (payload.exp - payload.iat > MAX_LIFETIME_SECONDS + SKEW_SECONDS) {
    return { ok: false, reason: "'Expiration time' claim ('exp') is too far in the future" }
  }
  return { ok: true }
}
