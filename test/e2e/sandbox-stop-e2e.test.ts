/**
 * `leasecron sandbox` stops and removes the files it wrote (the env file, the key file) on SIGINT and
 * SIGTERM, started with node directly and through `npm exec` (what `npx leasecron sandbox &` runs): npm
 * runs it under `sh -c`, forwards a SIGTERM to that shell only, and the shell exits without passing it
 * on, so the sandbox must notice that its parent went (src/cli/until-stopped.ts). Real processes, real
 * signals; Linux (/proc) to tell a process that is gone from one that runs.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { MAIN } from '../support/worker-process.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const dir = mkdtempSync(join(tmpdir(), 'leasecron-sandbox-stop-'))
const started: number[] = []
afterAll(() => {
  // A sandbox a failed test left running is stopped (only the ones these tests started).
  for (const pid of started) if (!gone(pid)) process.kill(pid, 'SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/** Whether `pid` has exited: no such process, or a zombie its new parent has not reaped yet. */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true
  } catch {
    return true
  }
}

async function until(what: string, ok: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

interface Running {
  child: ChildProcess
  /** The sandbox's own pid, as it prints it (npm's grandchild when started through npm exec). */
  pid: number
  envFile: string
  keyFile: string
  output: () => string
  exited: Promise<number | null>
}

/** Starts `command args…` and waits for the sandbox to write its env file. */
async function startSandbox(command: string, args: string[], options: { cwd: string; detached?: boolean }) {
  const envFile = join(mkdtempSync(join(dir, 'run-')), 'sandbox.env')
  const child = spawn(command, [...args, 'sandbox', '--env-out', envFile], {
    cwd: options.cwd,
    detached: options.detached ?? false,
    env: { PATH: process.env.PATH ?? '', HOME: dir, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (text += c))
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (text += c))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  // It prints its pid just after it writes the env file: the file alone can come before the line reaches us.
  const printedPid = () => /\(kill (\d+)\)/.exec(text)?.[1]
  await until(
    `the sandbox did not write its env file and print its pid (${text})`,
    () => existsSync(envFile) && printedPid() !== undefined,
    30_000,
  )
  const pid = Number(printedPid())
  started.push(pid)
  const keyFile = /^GITHUB_APP_PRIVATE_KEY_FILE=(.+)$/m.exec(readFileSync(envFile, 'utf8'))![1]!
  expect(existsSync(keyFile)).toBe(true)
  return { child, pid, envFile, keyFile, output: () => text, exited } satisfies Running
}

async function expectStoppedAndClean(sandbox: Running, why: string): Promise<void> {
  await until(`the sandbox (pid ${sandbox.pid}) still ran after ${why}`, () => gone(sandbox.pid))
  expect(existsSync(sandbox.envFile), `sandbox.env outlived the sandbox after ${why}`).toBe(false)
  expect(existsSync(sandbox.keyFile), `the key file outlived the sandbox after ${why}`).toBe(false)
}

describe('leasecron sandbox, started with node', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops on ${signal}, exits 0 and removes its env file and key file`, async () => {
      const sandbox = await startSandbox(process.execPath, [MAIN], { cwd: dir })
      expect(sandbox.pid, 'the sandbox printed another pid than its own').toBe(sandbox.child.pid)
      sandbox.child.kill(signal)
      expect(await sandbox.exited).toBe(0)
      await expectStoppedAndClean(sandbox, signal)
      expect(sandbox.output()).toContain(`sandbox stopped (${signal})`)
    }, 60_000)
  }
})

describe('leasecron sandbox, started through npm exec (npx)', () => {
  // A project with leasecron installed: its bin links to this checkout's build, as npm would link it.
  const project = join(dir, 'project')
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true }))
  symlinkSync(ROOT, join(project, 'node_modules', 'leasecron'))
  symlinkSync(
    join('..', 'leasecron', 'dist', 'bundle', 'leasecron.js'),
    join(project, 'node_modules', '.bin', 'leasecron'),
  )
  const npmExec = ['exec', '--offline', '--', 'leasecron']

  it('stops when npm gets SIGTERM (npm’s shell exits; the sandbox follows) and removes its files', async () => {
    const sandbox = await startSandbox('npm', npmExec, { cwd: project })
    sandbox.child.kill('SIGTERM')
    await sandbox.exited
    await expectStoppedAndClean(sandbox, 'SIGTERM to npm')
    // npm 11 under dash: the shell dies and the sandbox sees its parent go; an npm that passed the
    // signal on would stop it directly, which is as good.
    expect(sandbox.output()).toMatch(/sandbox stopped \((parent exited|SIGTERM)\)/)
  }, 60_000)

  it('stops on SIGINT to its process group (Ctrl-C, or kill -INT %1 under job control), npm too', async () => {
    const sandbox = await startSandbox('npm', npmExec, { cwd: project, detached: true })
    process.kill(-sandbox.child.pid!, 'SIGINT')
    await sandbox.exited
    await expectStoppedAndClean(sandbox, 'SIGINT to the process group')
    expect(sandbox.output()).toContain('sandbox stopped (SIGINT)')
  }, 60_000)
})
