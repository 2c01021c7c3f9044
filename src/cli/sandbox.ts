/**
 * `leasecron sandbox`: one seeded sandbox forge that several workers share, for trying the scaled shape
 * on one machine. It prints the URL, the App id, the installation id and a key file (and writes an env
 * file to source), so workers started with those variables all talk to the same forge: a status one
 * holder posts is seen by the next, and the replicas' meter lines add up. With MONGO_URI set it also
 * seeds the merge-gate sweeper's gating runs into that database, matching the sandbox's pull requests.
 *
 * Not a GitHub replacement: the sandbox binds loopback only and has no real security.
 */
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { planDemoGatingRuns, seedDemoGatingRuns } from '../nets/demo-seed.js'
import { MongoGateRunStore } from '../nets/merge-gate/mongo-gate-run-store.js'
import type { SandboxFixture } from '../sandbox/sandbox-fixture.js'
import { type SandboxForge, startSandboxForge } from '../sandbox/sandbox-forge.js'
import type { SandboxInstallationInput } from '../sandbox/sandbox-installations.js'
import { generateSandboxFixture } from '../sandbox/sandbox-generator.js'
import type { WorkerConfig } from '../config/worker-config.js'
import { DEMO_SANDBOX_DATA } from '../worker/local-sandbox.js'
import { createLogger } from '../observe/logger.js'
import { describeMongoError } from '../worker/mongo-connection.js'
import { openRuntime } from '../worker/runtime.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { untilStopped } from './until-stopped.js'

/**
 * Runs the sandbox until SIGINT, SIGTERM or SIGHUP, or until the process that started it exits
 * (until-stopped.ts: npx's shell does not pass a SIGTERM on); then removes the key file and the env file.
 * Resolves to the exit code (0, or 64 for a bad --port, --installations or --env-out, 1 if it cannot start).
 */
export async function sandboxCommand({ values, config, io }: CommandContext): Promise<number> {
  const args = sandboxArgs(values)
  if (typeof args === 'string') {
    io.err(`leasecron sandbox: ${args}`)
    return EXIT.usage
  }
  const { port, count } = args
  const demo = demoInstallations(count)
  const plan = planDemoGatingRuns(demo.fixture, {
    now: new Date(),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    installationOf: demo.installationOf,
  })
  let sandbox: SandboxForge
  try {
    sandbox = await startSandboxForge({
      port,
      fixture: plan.fixture,
      ...(demo.installations ? { installations: demo.installations } : {}),
    })
  } catch (error) {
    io.err(`leasecron sandbox: cannot start: ${(error as Error).message}`)
    return EXIT.failure
  }
  const files = writeKeyFile(sandbox, demo.installations !== undefined, values['env-out'])
  printSandbox(sandbox, demo, files, io)
  io.out(await seedGatingRuns(config, plan, io))
  // Last, so that a script can wait for the env file: once it exists, the sandbox listens and is seeded.
  // Written whole beside it and renamed into place, so a script that sees the file never reads it half-written.
  const partial = `${files.envFile}.${process.pid}.partial`
  try {
    writeFileSync(partial, `${files.variables.map(([k, v]) => `${k}=${v}`).join('\n')}\n`, { mode: 0o600 })
    renameSync(partial, files.envFile)
  } catch (error) {
    rmSync(partial, { force: true })
    // Checked before the start (envOutProblem), so only a folder removed meanwhile lands here.
    io.err(`leasecron sandbox: cannot write the env file ${files.envFile}: ${(error as Error).message}`)
    await sandbox.close()
    rmSync(files.dir, { recursive: true, force: true })
    return EXIT.failure
  }
  // The handlers first, then the line that names the pid: a script that signals as soon as it reads the pid
  // (the stop test does) found the process still on Node's default SIGINT, which killed it without cleaning up.
  const stopping = untilStopped()
  io.out(
    `Stop it with Ctrl-C (SIGINT) or SIGTERM (kill ${process.pid}); it also stops when the process that started it exits.`,
  )
  const reason = await stopping
  await sandbox.close()
  // The env file goes too, also one the user named: it would point later workers at a dead sandbox.
  rmSync(files.dir, { recursive: true, force: true })
  rmSync(files.envFile, { force: true })
  io.out(`sandbox stopped (${reason}); its key file and env file are removed`)
  return EXIT.ok
}

/** The options, checked before anything starts: `{ port, count }`, or what was wrong (exit 64). */
function sandboxArgs(values: CommandContext['values']): { port: number; count: number } | string {
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return `--port expected a TCP port from 0 to 65535, got ${JSON.stringify(values.port)}`
  const count = values.installations === undefined ? 1 : Number(values.installations)
  if (!Number.isInteger(count) || count < 1 || count > MAX_INSTALLATIONS)
    return `--installations expected a whole number from 1 to ${MAX_INSTALLATIONS}, got ${JSON.stringify(values.installations)}`
  const envOut = values['env-out']
  const problem = typeof envOut === 'string' ? envOutProblem(resolve(envOut)) : undefined
  if (problem !== undefined)
    return `--env-out expected a file in an existing folder it may write to; ${problem}, got ${JSON.stringify(envOut)}`
  return { port, count }
}

/**
 * Why the env file cannot be written at `target`, or undefined. Checked before the sandbox starts: the
 * file is written last, so a missing folder was found only after the sandbox had printed it as written,
 * and it then exited 1 with a bare ENOENT, leaving its key file behind.
 */
function envOutProblem(target: string): string | undefined {
  const folder = dirname(target)
  try {
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`
    accessSync(folder, constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT'
      ? `the folder ${folder} does not exist`
      : `the folder ${folder} cannot be written (${code})`
  }
  return existsSync(target) && statSync(target).isDirectory() ? `${target} is a folder` : undefined
}

/** `--installations` at most: enough to try `all` and the fair share, few enough to read on one screen. */
const MAX_INSTALLATIONS = 20
const FIRST_INSTALLATION = 42_420_001

interface DemoInstallations {
  fixture: SandboxFixture
  /** Undefined for one: the App's one installation sees every repository (the sandbox as it always was). */
  installations: SandboxInstallationInput[] | undefined
  installationOf: (owner: string) => number | undefined
}

/**
 * The demo data for `count` installations: one sees the demo's repositories of `sandbox-org`; several
 * each get an organization (`sandbox-org-1`…) with the demo's repositories, ids from 42420001 up.
 */
function demoInstallations(count: number): DemoInstallations {
  if (count === 1)
    return {
      fixture: generateSandboxFixture({ ...DEMO_SANDBOX_DATA }),
      installations: undefined,
      installationOf: () => undefined,
    }
  const installations = Array.from({ length: count }, (_, i) => ({
    id: FIRST_INSTALLATION + i,
    account: `sandbox-org-${i + 1}`,
  }))
  const repos = installations.flatMap(
    ({ account }, i) =>
      generateSandboxFixture({ ...DEMO_SANDBOX_DATA, seed: DEMO_SANDBOX_DATA.seed + i, owner: account })
        .repos,
  )
  // Each organization's repositories are numbered from 1 by the generator; their ids must not collide.
  const fixture = { repos: repos.map((repo, k) => ({ ...repo, id: 100_001 + k })) }
  const byAccount = new Map(installations.map(({ id, account }) => [account, id]))
  return { fixture, installations, installationOf: (owner) => byAccount.get(owner) }
}

interface SandboxFiles {
  dir: string
  keyFile: string
  envFile: string
  variables: [string, string][]
}

/**
 * The key file (mode 0600), and where the env file holding the four variables goes: with several
 * installations, `GITHUB_INSTALLATION_IDS=all` instead of the one `GITHUB_INSTALLATION_ID`.
 */
function writeKeyFile(sandbox: SandboxForge, several: boolean, envFile: string | undefined): SandboxFiles {
  const dir = mkdtempSync(join(tmpdir(), 'leasecron-sandbox-'))
  const keyFile = join(dir, 'app-key.pem')
  writeFileSync(keyFile, sandbox.privateKey, { mode: 0o600 })
  chmodSync(keyFile, 0o600)
  const variables: [string, string][] = [
    ['GITHUB_API_URL', sandbox.url],
    ['GITHUB_APP_ID', String(sandbox.appId)],
    several ? ['GITHUB_INSTALLATION_IDS', 'all'] : ['GITHUB_INSTALLATION_ID', String(sandbox.installationId)],
    ['GITHUB_APP_PRIVATE_KEY_FILE', keyFile],
  ]
  const target = envFile === undefined ? join(dir, 'sandbox.env') : resolve(envFile)
  return { dir, keyFile, envFile: target, variables }
}

function printSandbox(sandbox: SandboxForge, demo: DemoInstallations, files: SandboxFiles, io: Io): void {
  io.out(`sandbox forge listening at ${sandbox.url}`)
  if (demo.installations === undefined) {
    io.out(`  App id ${sandbox.appId}, installation id ${sandbox.installationId}, key file ${files.keyFile}`)
    io.out(`  seeded with ${DEMO_SANDBOX_DATA.repos} repositories, their pull requests and issues`)
  } else {
    io.out(`  App id ${sandbox.appId}, ${demo.installations.length} installations, key file ${files.keyFile}`)
    for (const { id, account } of demo.installations)
      io.out(
        `  installation ${id}: ${account}, ${DEMO_SANDBOX_DATA.repos} repositories, their pull requests and issues`,
      )
  }
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
