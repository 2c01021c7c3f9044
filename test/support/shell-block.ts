/**
 * Runs a documentation block as a user pastes it: bash in a folder, under a clean environment (PATH and
 * HOME and what the caller adds), with a time bound. Shared by the README's and docs/'s block tests.
 */
import { spawn } from 'node:child_process'

/** Whatever a block leaves running in the background is stopped when its shell ends, pass or fail. */
export const REAP = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\nset -e\n"

export interface ShellResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `script` with bash in `cwd`; resolves its exit code and output (killed after `timeoutMs`). */
export function runShell(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
