/**
 * A runtime (runtime.ts) for one recording net, on the in-memory store or on the test Mongo, as `leasecron
 * once` and a serverless trigger open theirs: for tests of runOnceOnRuntime. Each test file closes what it
 * opened with `closeTickRuntimes` in its afterAll.
 */
import type { WorkerConfig } from '../../src/config/worker-config.js'
import { loadConfig, type NetDefinition } from '../../src/index.js'
import type { Logger } from '../../src/observe/logger.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { mongoServer, useTestDatabase } from './mongo.js'
import { TEST_LEASES } from './test-nets.js'

const opened: PassRuntime[] = []

/** Opens the runtime of `net` with `env` (the sandbox forge, and Mongo's variables on `mongo`). */
export async function openTickRuntime(
  store: 'memory' | 'mongo',
  database: string,
  net: NetDefinition,
  env: Record<string, string>,
  log: Logger,
) {
  const all: Record<string, string> = { LEASECRON_FORGE: 'sandbox', ...env }
  if (store === 'mongo') {
    const db = await useTestDatabase(database)
    Object.assign(all, { MONGO_URI: mongoServer().url, MONGO_DB: db.db.databaseName })
  }
  const loaded = loadConfig(all, [net], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues))
  const config: WorkerConfig = loaded.config
  const runtime = await openRuntime({ config, log })
  opened.push(runtime)
  return { config, runtime, net: config.nets[0]! }
}

/** Closes every runtime openTickRuntime opened in this file. */
export async function closeTickRuntimes(): Promise<void> {
  for (const runtime of opened.splice(0)) await runtime.close()
}
