/**
 * `leasecron run` started beside a worker.config.* without --config runs the built-in nets, and says so in
 * its log: a newcomer who wrote the file and typed `npx leasecron run` otherwise sees only the built-in nets
 * start, with nothing naming the file that was left out.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MAIN } from '../support/worker-process.js'
import { type NodeProcess, spawnNodeProcess } from '../support/node-process.js'

const dir = mkdtempSync(join(tmpdir(), 'leasecron-run-hint-'))
const started: NodeProcess[] = []
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGTERM', 5_000)))
  rmSync(dir, { recursive: true, force: true })
})

describe('leasecron run beside a worker.config.* it was not given', () => {
  it('warns that the file is not loaded and names the --config that would load it', async () => {
    // Before: the worker started the built-in nets with no word about the worker.config.mjs beside it.
    writeFileSync(join(dir, 'worker.config.mjs'), "throw new Error('the hint must not load the file')\n")
    const worker = spawnNodeProcess(
      MAIN,
      ['run'],
      { PORT: '0', LOG_LEVEL: 'info' },
      { cwd: dir, label: 'run' },
    )
    started.push(worker)
    const line = await worker.waitFor(
      (l) => (l as { event?: unknown }).event === 'config_not_loaded',
      20_000,
      'the config_not_loaded warning',
    )
    expect(line).toMatchObject({
      level: 'warn',
      msg: 'a worker.config.mjs is here; pass --config ./worker.config.mjs to use its nets; running the built-in nets',
    })
  }, 30_000)
})
