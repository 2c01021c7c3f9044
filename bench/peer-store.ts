/**
 * The shape the peers scenario drives every backing store through (Redis, PostgreSQL, FerretDB): where it
 * listens, a crash-and-restart on the same port and data directory, an operations counter, and its end.
 * A contract only; each store has its own file (peer-redis.ts, peer-postgres.ts, peer-ferret.ts).
 */
import { createServer } from 'node:net'

/** Operations a store served, by the name it counts them under (command, database, collection). */
export type OpCounts = Record<string, number>

export interface PeerStore {
  /** `redis 7.0.15`, `PostgreSQL 15.10`, `FerretDB 1.24.2 (SQLite)`. */
  readonly description: string
  /** How it was started: the settings the docs' recommendations and this bench chose. */
  readonly settings: string
  /** Kills the server (SIGKILL or its equivalent), waits `downMs`, starts it again on the same data. */
  crashAndRestart(downMs: number): Promise<void>
  /** Operations counted so far (a counter that only grows, read twice to get a window). */
  ops(): Promise<OpCounts>
  stop(): Promise<void>
}

/** A free loopback port (the OS picks it; a race with another process is possible but rare). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      const port = typeof address === 'object' && address ? address.port : 0
      s.close(() => resolve(port))
    })
  })
}

/** Retries `probe` every 200 ms until it resolves or `timeoutMs` passes; throws its last error then. */
export async function waitUntil(what: string, probe: () => Promise<unknown>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await probe()
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`${what} did not answer within ${timeoutMs} ms`, { cause: error })
      await new Promise((r) => setTimeout(r, 200))
    }
  }
}

/** `after` minus `before`, per key (keys only in `after` count from 0). */
export function opsBetween(before: OpCounts, after: OpCounts): OpCounts {
  const delta: OpCounts = {}
  for (const [key, value] of Object.entries(after)) {
    const d = value - (before[key] ?? 0)
    if (d > 0) delta[key] = d
  }
  return delta
}
