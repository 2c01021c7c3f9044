/**
 * Raw HTTP helpers for the sandbox tests: sign an App JWT by hand and call the sandbox with Node's
 * fetch, so the tests see GitHub's exact statuses and headers without any client in between.
 */
import { sign } from 'node:crypto'
import type { SandboxForge } from '../../src/sandbox/sandbox-forge.js'

export function appJwt(
  sandbox: SandboxForge,
  claims: { iss?: unknown; iat?: number; exp?: number } = {},
  privateKey = sandbox.privateKey,
): string {
  const now = Math.floor(Date.now() / 1000)
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url')
  const payload = Buffer.from(
    JSON.stringify({
      iss: claims.iss ?? sandbox.appId,
      iat: claims.iat ?? now - 30,
      exp: claims.exp ?? now + 540,
    }),
  ).toString('base64url')
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), privateKey).toString('base64url')
  return `${header}.${payload}.${signature}`
}

export async function mintToken(sandbox: SandboxForge): Promise<string> {
  const response = await fetch(`${sandbox.url}/app/installations/${sandbox.installationId}/access_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${appJwt(sandbox)}` },
  })
  if (response.status !== 201) throw new Error(`mint failed: ${response.status}`)
  return ((await response.json()) as { token: string }).token
}

export interface Answer {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read GitHub's JSON field by field, as a client would
  json: any
}

export async function call(
  sandbox: SandboxForge,
  token: string | undefined,
  path: string,
  init: {
    method?: string
    body?: unknown
    headers?: Record<string, string>
    redirect?: 'follow' | 'manual' | 'error'
  } = {},
): Promise<Answer> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: init.method ?? 'GET',
    redirect: init.redirect ?? 'manual',
    headers: {
      ...(token === undefined ? {} : { authorization: `token ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = text === '' ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}
