/**
 * The store's server as the clock guard reads it: its wall clock, once connected. The worker's
 * MongoConnection is one; the share room names only what it reads, so it does not import the runtime.
 */
export interface ServerClock {
  /** Resolves once the first connection succeeded (never rejects; pending while it keeps failing). */
  readonly connected: Promise<void>
  /** The server's wall-clock time in ms since the epoch; rejects when it does not answer within `signal`. */
  serverTime(signal: AbortSignal): Promise<number>
}
