/**
 * `leasecron sandbox`: one seeded sandbox forge that several workers share, for trying the scaled shape
 * on one machine. It prints the URL, the App id, the installation id and a key file (and writes an env
 * file to source), so workers started with those variables all talk to the same forge: a status one
 * holder posts is seen by the next, and the replicas' meter lines add up. With MONGO_URI set it also
 * seeds the merge-gate sweeper's gating runs into that database, matching the sandbox's pull requests.
 *
 * Not a GitHub replacement: the sandbox binds loopback only and has no real security.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { planDemoGatingRuns, seedDemoGatingRuns } from '../nets/demo-seed.js'
import { MongoGateRunStore } from '../nets/merge-gate/mongo-gate-run-store.js'
import { type SandboxForge, startSandboxForge } from '../sandbox/sandbox-forge.js'
import { generateSandboxFixture } from '../sandbox/sandbox-generator.js'
import type { WorkerConfig } from '../config/worker-config.js'
import { DEMO_SANDBOX_DATA } from '../worker/local-sandbox.js'
import { createLogger } from '../worker/logger.js'
import { describeMongoError } from '../worker/mongo-connection.js'
import { openRuntime } from '../worker/runtime.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { untilStopped } from './until-stopped.js'

/**
 * Runs the sandbox until SIGINT, SIGTERM or SIGHUP, or until the process that started it exits
 * (until-stopped.ts: npx's shell does not pass a SIGTERM on); then removes the key file and the env file.
 * Resolves to the exit code (0, or 64 for a bad --port, 1 if it cannot start).
 */
export async function sandboxCommand({ values, config, io }: CommandContext): Promise<number> {
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.err(
      `leasecron sandbox: --port expected a TCP port from 0 to 65535, got ${JSON.stringify(values.port)}`,
    )
    return EXIT.usage
  }
  const fixture = generateSandboxFixture({ ...DEMO_SANDBOX_DATA })
  const plan = planDemoGatingRuns(fixture, {
    now: new Date(),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  })
  let sandbox: SandboxForge
  try {
    sandbox = await startSandboxForge({ port, fixture: plan.fixture })
  } catch (error) {
    io.err(`leasecron sandbox: cannot start: ${(error as Error).message}`)
    return EXIT.failure
  }
  const files = writeKeyFile(sandbox, values['env-out'])
  printSandbox(sandbox, files, io)
  io.out(await seedGatingRuns(config, plan, io))
  // Last, so that a script can wait for the env file: once it exists, the sandbox listens and is seeded.
  writeFileSync(files.envFile, `${files.variables.map(([k, v]) => `${k}=${v}`).join('\n')}\n`, {
    mode: 0o600,
  })
  io.out(
    `Stop it with Ctrl-C (SIGINT) or SIGTERM (kill ${process.pid}); it also stops when the process that started it exits.`,
  )
  const reason = await untilStopped()
  await sandbox.close()
  // The env file goes too, also one the user named: it would point later workers at a dead sandbox.
  rmSync(files.dir, { recursive: true, force: true })
  rmSync(files.envFile, { force: true })
  io.out(`sandbox stopped (${reason}); its key file and env file are removed`)
  return EXIT.ok
}

interface SandboxFiles {
  dir: string
  keyFile: string
  envFile: string
  variables: [string, string][]
}

/** The key file (mode 0600), and where the env file holding the four variables goes. */
function writeKeyFile(sandbox: SandboxForge, envFile: string | undefined): SandboxFiles {
  const dir = mkdtempSync(join(tmpdir(), 'leasecron-sandbox-'))
  const keyFile = join(dir, 'app-key.pem')
  writeFileSync(keyFile, sandbox.privateKey, { mode: 0o600 })
  chmodSync(keyFile, 0o600)
  const variables: [string, string][] = [
    ['GITHUB_API_URL', sandbox.url],
    ['GITHUB_APP_ID', String(sandbox.appId)],
    ['GITHUB_INSTALLATION_ID', String(sandbox.installationId)],
    ['GITHUB_APP_PRIVATE_KEY_FILE', keyFile],
  ]
  const target = envFile === undefined ? join(dir, 'sandbox.env') : resolve(envFile)
  return { dir, keyFile, envFile: target, variables }
}

function printSandbox(sandbox: SandboxForge, files: SandboxFiles, io: Io): void {
  io.out(`sandbox forge listening at ${sandbox.url}`)
  io.out(`  App id ${sandbox.appId}, installation id ${sandbox.installationId}, key file ${files.keyFile}`)
  io.out(`  seeded with ${DEMO_SANDBOX_DATA.repos} repositories, their pull requests and issues`)
  io.out('Start each worker with these variables (they are in the env file too):')
  for (const [name, value] of files.variables) io.out(`  ${name}=${value}`)
  io.out(`env file: ${files.envFile}   (load it with: set -a; . ${files.envFile}; set +a)`)
}

/** Seeds the gating runs that match the sandbox into MONGO_URI's database; says what it did. */
async function seedGatingRuns(
  config: WorkerConfig,
  plan: ReturnType<typeof planDemoGatingRuns>,
  io: Io,
): Promise<string> {
  if (!config.mongo) return 'gating runs: not seeded (set MONGO_URI to seed them into the workers’ database)'
  // The database the workers share, opened like every command's (quiet; the driver loads only now).
  const runtime = await openRuntime({ config, parts: 'read', log: createLogger({ level: 'silent' }) })
  const client = runtime.mongo!.client
  try {
    // Connect first: a failed connect says why (refused, unknown host); a later call only "topology closed".
    await client.connect()
    const store = new MongoGateRunStore(client.db(config.mongo.db))
    await store.ensureIndexes()
    const count = await seedDemoGatingRuns(store, plan)
    return `gating runs: ${count} seeded in database ${config.mongo.db} (${Object.entries(plan.kinds)
      .map(([kind, ids]) => `${ids.length} ${kind}`)
      .join(', ')})`
  } catch (error) {
    io.err(`leasecron sandbox: could not seed gating runs: ${describeMongoError(error)}`)
    return 'gating runs: not seeded (see the error above); the sandbox runs anyway'
  } finally {
    await runtime.close()
  }
}
