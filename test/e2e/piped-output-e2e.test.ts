/**
 * The CLI's output through a pipe is whole: the built bin, its stdout a pipe read by this process, an
 * answer far larger than a pipe's buffer (64 KiB on Linux). The bin exited right after its last write,
 * and a piped `backfill --dry-run --json` ended at 65,536 bytes.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { MAIN } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/backfill-nets.mjs', import.meta.url))

const DRY_RUN_2025 = [
  'backfill',
  'backfill-net',
  '--from',
  '2025-01-01T00:00:00Z',
  '--to',
  '2026-01-01T00:00:00Z',
  '--dry-run',
  '--config',
  NETS,
]

/**
 * Runs the bin with `args`, its stdout piped into a reader that starts reading a second late, as a slow
 * reader (`| jq` on a busy host) would: until then the pipe holds only its buffer, so a bin that exits
 * without waiting for the pipe loses the rest, every time. Resolves stdout and the stderr, on which the
 * shell adds the bin's exit code (`exit <n>`). `reader`: another reader of the pipe (`head -3`).
 */
function piped(args: string[], reader = '(sleep 1; cat)'): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', `("$0" "$@"; echo "exit $?" >&2) | ${reader}`, process.execPath, MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })),
    )
  })
}

describe('the CLI through a pipe', () => {
  it('writes the whole of a `backfill --dry-run --json` answer far above 64 KiB before it exits', async () => {
    // Hourly through 2025: 8,761 slots, about 230 KiB of JSON. No Mongo and no forge: a dry run opens
    // nothing.
    const ran = await piped([...DRY_RUN_2025, '--json'])
    expect(ran.stderr).toMatch(/^exit 0$/m)
    expect(ran.stdout.endsWith('}\n'), `the answer was cut at ${ran.stdout.length} bytes`).toBe(true)
    const answer = JSON.parse(ran.stdout) as { slots: string[] }
    expect(answer.slots).toHaveLength(8_761)
    expect(answer.slots.at(-1)).toBe('2026-01-01T00:00:00.000Z')
    expect(ran.stdout.length, 'not above a pipe’s buffer: the test proves nothing').toBeGreaterThan(
      2 * 65_536,
    )
  }, 60_000)

  it('stops quietly when its reader closes the pipe early (`| head -3`), with no EPIPE stack', async () => {
    const ran = await piped(DRY_RUN_2025, 'head -3')
    expect(ran.stdout.split('\n').filter(Boolean), 'head did not get its three lines').toHaveLength(3)
    expect(ran.stderr, 'the bin died of the closed pipe instead of ending as it would have').not.toMatch(
      /EPIPE|Unhandled 'error' event/,
    )
    expect(ran.stderr).toMatch(/^exit 0$/m)
  }, 60_000)
})
