/**
 * The CLI guides a newcomer, on the built worker in a process of its own: the `--config` hint in a folder
 * that holds a worker.config.*, and `once` keeping its answer alone on stdout when stdout is a pipe.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { MAIN } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/e2e-nets.mjs', import.meta.url))
const run = promisify(execFile)
const folder = mkdtempSync(join(tmpdir(), 'leasecron-guides-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The CLI with separate stdout and stderr (both pipes, so neither is a terminal) and exactly `env`. */
async function cli(args: string[], env: Record<string, string> = {}, cwd = folder) {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
    return { code, stdout, stderr }
  }
}

describe('the --config hint', () => {
  // A module that throws when loaded: the commands below succeed only if it is never loaded implicitly.
  writeFileSync(join(folder, 'worker.config.ts'), "throw new Error('loaded without --config')\n")
  const HINT = 'a worker.config.ts is here; pass --config ./worker.config.ts to use its nets'

  it('follows the list of nets when `once` is given a net the built-in configuration lacks', async () => {
    const { code, stderr } = await cli(['once', 'stale-pulls'])
    expect(code).toBe(64)
    expect(stderr).toContain(
      'leasecron once: expected one of merge-gate-sweeper, board-issue-sync; got stale-pulls',
    )
    expect(stderr, 'the user was not told about the worker.config.ts beside them').toContain(HINT)
  }, 30_000)

  it('follows the nets `once --help` lists, and the unknown net of `backfill`', async () => {
    const help = await cli(['once', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/Nets:\n[\s\S]*merge-gate-sweeper[\s\S]*\n\(a worker\.config\.ts is here;/)
    const backfill = await cli([
      'backfill',
      'stale-pulls',
      '--dry-run',
      '--from',
      '2026-01-01T00:00:00Z',
      '--to',
      '2026-01-01T01:00:00Z',
    ])
    expect(backfill.code).toBe(64)
    expect(backfill.stderr).toContain(HINT)
  }, 30_000)

  it('goes to stderr with `config`, so its stdout stays the JSON it was', async () => {
    const { code, stdout, stderr } = await cli(['config'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).nets.map((n: { name: string }) => n.name)).toContain('merge-gate-sweeper')
    expect(stderr.trim()).toBe(`leasecron config: ${HINT}`)
  }, 30_000)

  it('is not given when --config names a module, or no worker.config.* is here', async () => {
    const given = await cli(['once', 'stale-pulls', '--config', NETS])
    expect(given.code).toBe(64)
    expect(given.stderr).not.toContain('is here; pass --config')
    const elsewhere = mkdtempSync(join(folder, 'empty-'))
    const bare = await cli(['once', 'stale-pulls'], {}, elsewhere)
    expect(bare.code).toBe(64)
    expect(bare.stderr).not.toContain('is here; pass --config')
  }, 30_000)
})

describe('once on a pipe', () => {
  it('prints its result line alone on stdout and its log lines on stderr', async () => {
    // Cold start on a loaded machine: the every-second net's default TIMEOUT (1 s) is not what is tested.
    const { code, stdout, stderr } = await cli(['once', 'e2e-tick', '--config', NETS], {
      LEASECRON_NET_E2E_TICK_TIMEOUT: '20s',
    })
    expect(code, stderr).toBe(0)
    expect(stdout, 'stdout held more than the result line').toMatch(
      /^e2e-tick: ran slot \S+ as \S+ \(fence 1\)\n$/,
    )
    const log = stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; event?: string })
    expect(
      log.filter((l) => l.event === 'pass-end'),
      'the pass’s log was not on stderr',
    ).toHaveLength(1)
    expect(log.map((l) => l.msg)).toContain('released')
  }, 30_000)
})
