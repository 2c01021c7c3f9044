/**
 * The worker's HTTP port under slow or hostile clients: the limits its server runs with and the headers
 * every response carries. The port faces whatever reaches the pod (only the admin API asks for a token),
 * so nothing here is left to Node's defaults (a 60 s headers timeout, a 300 s request timeout, no connection cap)
 * and no one client address may hold every connection.
 *
 * What it is not: the routes (http.ts) or the status page's own Content-Security-Policy (page-assets.ts).
 */
import type { OutgoingHttpHeaders, Server, ServerOptions } from 'node:http'
import { capPerAddress } from './per-address-cap.js'

export interface HttpLimits {
  /** A request's headers must arrive within this many ms of its first byte (or of the connection). */
  headersTimeoutMs: number
  /** A whole request must arrive within this many ms. */
  requestTimeoutMs: number
  /** An idle kept-alive connection is closed after this many ms. */
  keepAliveTimeoutMs: number
  /** Connections open at once; the server closes any beyond it as it accepts them. */
  maxConnections: number
  /**
   * Connections open at once from one client address (per-address-cap.ts); below `maxConnections`, so one
   * address cannot take every place and starve the probes and scrapes that come from others.
   */
  maxConnectionsPerAddress: number
  /** The largest request body read (the admin API's JSON); a larger one is answered 413 unread. */
  maxBodyBytes: number
}

/**
 * Seconds, not minutes: every route answers from memory or within the status snapshot's own bounds, and
 * the probes and scrapers that call it send whole requests at once. 64 connections is well above what a
 * kubelet, a Prometheus and a few people with the page open use; 16 from one address is above what any
 * one of them uses, and leaves 48 places to the others.
 */
export const HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 64,
  maxConnectionsPerAddress: 16,
  // An admin action's body is a few fields (`for`, `until`, `reason`, `by`): 16 KiB is far above any.
  maxBodyBytes: 16_384,
}

/** The `createServer` options for `limits`. */
export function serverOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts above only this often (30 s by default), which would let a slow client
    // hold its socket for half a minute past the bound.
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
  }
}

/** Applies what `createServer` takes only as properties. */
export function applyLimits(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections
  capPerAddress(server, limits.maxConnectionsPerAddress)
}

/**
 * Headers on every response: no MIME sniffing, no referrer, and (overridden by the status page with its
 * own) a policy that lets nothing load or run, and no framing.
 */
export const SECURITY_HEADERS: Readonly<OutgoingHttpHeaders> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
}
