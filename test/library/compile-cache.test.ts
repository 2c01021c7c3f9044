/**
 * The compile cache the production image ships (Dockerfile, scripts/warm-compile-cache.mjs): made once as
 * the user the worker runs as, then read by every start, also from a read-only filesystem. The Dockerfile
 * is read (no Docker engine runs here); the warm-up and the read are real, with the Node running the tests
 * when it has a compile cache (Node >= 22.1; on Node 20 there is none and the script does nothing).
 */
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import module from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'

describe('the shipped compile cache', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')
  const production = dockerfile.slice(dockerfile.indexOf('AS production'))
  // The Node flags the worker starts with (the ENTRYPOINT's, before the CLI's file): V8 keys the cache by them.
  const entrypoint: string[] = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(production)?.[1] ?? '[]')
  const nodeFlags = entrypoint.slice(1, entrypoint.indexOf('dist/bundle/leasecron.js'))
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) {
      chmodSync(dir, 0o700)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('is made in the production image as the user the worker runs as, where the worker reads it', () => {
    const user = /^USER (\S+)/m.exec(production)?.[1]
    const cacheDir = /^ENV NODE_COMPILE_CACHE=(\S+)$/m.exec(production)?.[1]
    expect(cacheDir, 'the image starts without a compile cache').toBeDefined()
    expect(entrypoint[0], 'the ENTRYPOINT does not start the CLI with node').toBe('node')
    expect(entrypoint, 'the ENTRYPOINT does not start the CLI').toContain('dist/bundle/leasecron.js')
    // Made without the worker's flags, the cache would sit under another key that no start reads.
    const warm = production.indexOf(
      `RUN ${['node', ...nodeFlags].join(' ')} /tmp/warm-compile-cache.mjs dist/bundle`,
    )
    expect(warm, 'nothing fills the cache: every pod compiles the bundle').toBeGreaterThan(0)
    // Node keys the cache by user id: made as root, the worker (uid 1000) would never find it.
    expect(production.indexOf(`USER ${user}`), 'the cache is made as another user').toBeLessThan(warm)
    expect(production.indexOf('ENV NODE_COMPILE_CACHE'), 'the warm-up writes nowhere').toBeLessThan(warm)
    expect(production).toMatch(new RegExp(`chown ${user} \\S*${cacheDir!.replace(/^\/app\//, '')}`))
  })

  it.runIf(hasCompileCache)(
    'is filled by the warm-up and read, read-only, by the CLI’s next start with the same Node flags',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'leasecron-compile-cache-'))
      dirs.push(dir)
      const { NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env
      const env = { ...inherited, NODE_COMPILE_CACHE: dir }
      const warm = await run(
        process.execPath,
        [...nodeFlags, 'scripts/warm-compile-cache.mjs', 'dist/bundle'],
        { cwd: root, env },
      )
      expect(warm.stdout).toMatch(/warm-compile-cache: \d+ of \d+ files/)
      expect(readdirSync(dir).length, 'the warm-up left the cache empty').toBeGreaterThan(0)
      chmodSync(dir, 0o500)
      const start = await run(process.execPath, [...nodeFlags, 'dist/bundle/leasecron.js', '--version'], {
        cwd: root,
        env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      })
      expect(start.stdout).toMatch(/^leasecron \d/)
      expect(
        start.stderr,
        'the CLI compiled its modules again although the image ships them compiled',
      ).toMatch(/code cache for ESM file:\S+leasecron\.js was accepted/)
    },
    60_000,
  )
})
