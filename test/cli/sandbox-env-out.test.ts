/**
 * `leasecron sandbox --env-out FILE` where FILE cannot be written is refused before the sandbox starts:
 * exit 64 naming the option, the folder and what was expected. It used to start, print the env file as
 * written ("env file: … (load it with …)"), then exit 1 with a bare ENOENT and leave its key file behind.
 * The built CLI, a real process; TMPDIR is a folder of the test's own, so a key file left behind is seen.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MAIN } from '../support/worker-process.js'

const dir = mkdtempSync(join(tmpdir(), 'leasecron-env-out-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function sandbox(envOut: string) {
  const keys = mkdtempSync(join(dir, 'tmp-'))
  const run = spawnSync(process.execPath, [MAIN, 'sandbox', '--env-out', envOut], {
    // Node 22+ keeps its compile cache under the temp folder unless told otherwise: elsewhere, so that
    // anything left in TMPDIR is the sandbox's own.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      TMPDIR: keys,
      NODE_COMPILE_CACHE: join(dir, 'compile-cache'),
      LOG_LEVEL: 'silent',
    },
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { ...run, leftBehind: readdirSync(keys) }
}

describe('leasecron sandbox --env-out', () => {
  it('refuses a file in a folder that does not exist, before it starts or writes a key file', () => {
    const envOut = join(dir, 'no-such-folder', 'sandbox.env')
    const run = sandbox(envOut)
    expect(run.status, run.stderr).toBe(64)
    expect(run.stderr).toContain(
      `leasecron sandbox: --env-out expected a file in an existing folder it may write to; the folder ${join(dir, 'no-such-folder')} does not exist`,
    )
    expect(run.stdout, 'nothing may say the env file was written').not.toContain('env file:')
    expect(run.leftBehind, 'no key file may be left behind').toEqual([])
  })

  it('refuses a folder given as the file, and a file given as the folder', () => {
    expect(sandbox(dir).stderr).toContain(`${dir} is a folder`)
    const file = join(dir, 'plain-file')
    writeFileSync(file, '')
    const run = sandbox(join(file, 'sandbox.env'))
    expect(run.status).toBe(64)
    expect(run.stderr).toContain(`${file} is not a folder`)
  })

  it('puts the env file in place whole: a script waiting for it never reads it half-written', async () => {
    const folder = mkdtempSync(join(dir, 'watched-'))
    const envOut = join(folder, 'sandbox.env')
    const writes: string[] = []
    // inotify: a write into the file itself is a 'change' event that names it; a rename into place is not.
    const watcher = watch(folder, (event, name) => writes.push(`${event} ${name}`))
    const child = spawn(process.execPath, [MAIN, 'sandbox', '--env-out', envOut], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, NODE_COMPILE_CACHE: join(dir, 'compile-cache') },
      stdio: 'ignore',
    })
    try {
      const deadline = Date.now() + 30_000
      while (!existsSync(envOut) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(readFileSync(envOut, 'utf8')).toMatch(/^GITHUB_APP_PRIVATE_KEY_FILE=.+$/m)
      await new Promise((r) => setTimeout(r, 200))
      expect(writes, 'the env file was written in place: a reader could see it empty').not.toContain(
        'change sandbox.env',
      )
      expect(readdirSync(folder), 'the partial file was left beside it').toEqual(['sandbox.env'])
    } finally {
      watcher.close()
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
  }, 60_000)
})
