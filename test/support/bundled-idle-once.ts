/**
 * One `leasecron once bench-net-1` of the built bundle (`dist/bundle/leasecron.js`) on the ten idle nets
 * (bench/nets/idle-ten.mjs) against the test Mongo, under a preload of the caller's: what the library
 * tests that watch a start (what it loads, what it builds) run. The nets never call the forge.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process'
import { mongoServer } from './mongo.js'

/**
 * Runs the pass with `preload` (`['--import', file]` or `['-r', file]`) and `env` over a minimal
 * environment; returns the finished process. A failure to spawn or a timeout shows in `status`.
 */
export function bundledIdleOnce(
  preload: readonly string[],
  database: string,
  env: Record<string, string> = {},
): SpawnSyncReturns<string> {
  const args = [
    ...preload,
    'dist/bundle/leasecron.js',
    'once',
    'bench-net-1',
    '--config',
    'bench/nets/idle-ten.mjs',
  ]
  const base = { PATH: process.env.PATH ?? '', MONGO_URI: mongoServer().url, LOG_LEVEL: 'warn' }
  return spawnSync(process.execPath, args, {
    env: { ...base, MONGO_DB: `${database}_${Date.now()}`, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  })
}
