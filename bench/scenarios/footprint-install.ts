/**
 * Part of scenario `footprint`: what a consumer's install of leasecron costs. `npm pack` of the built
 * repository, then `npm install <tarball>` alone in an empty project (test/support/consumer-install.ts, the
 * pack test's own steps): the packages and megabytes under node_modules, the seconds npm took and the
 * warnings it printed, on this Node and npm.
 *
 * Not a registry install (leasecron is not published) and not a cold npm cache: npm prefers the cache the
 * repository's `npm ci` filled, so the seconds are npm's own work, not the network's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installAlone, packPackage, sh } from '../../test/support/consumer-install.js'
import { repoRoot, sig } from '../support.js'

/** The consumer install's figures as the result file records them. */
export interface ConsumerInstallFigure {
  node: string
  npm: string
  tarball: string
  packages: number
  packageNames: string[]
  megabytes: number
  seconds: number
  engineWarnings: string[]
  warnings: string[]
}

export const INSTALL_INPUTS =
  '`npm pack --ignore-scripts` of the built repository, then `npm install --prefer-offline --no-audit --no-fund <tarball>` alone in an empty ES-module project; packages and bytes counted under its node_modules'

/** Packs the repository and installs the tarball into a fresh empty project, removed afterwards. */
export async function measureConsumerInstall(): Promise<ConsumerInstallFigure> {
  const work = mkdtempSync(join(tmpdir(), 'leasecron-bench-install-'))
  try {
    const packed = await packPackage(repoRoot, work)
    const installed = await installAlone(join(work, 'consumer'), join(work, packed.filename))
    const npm = (await sh('npm', ['--version'], work)).stdout.trim()
    return {
      node: process.version,
      npm,
      tarball: packed.filename,
      packages: installed.packages.length,
      packageNames: installed.packages,
      megabytes: sig(installed.bytes / 1e6, 3),
      seconds: sig(installed.seconds, 3),
      engineWarnings: installed.engineWarnings,
      warnings: installed.warnings,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
