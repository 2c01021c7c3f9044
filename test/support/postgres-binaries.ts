/**
 * Where this machine's PostgreSQL server binaries are: `initdb` and `postgres` from one directory.
 * Looked for in `LEASECRON_TEST_POSTGRES_BIN` when set (and only there), then on PATH, then where Debian's
 * `postgresql` package puts them, /usr/lib/postgresql/<major>/bin (not on PATH), the newest major first.
 * It does not check that they run; starting the cluster does (test/support/postgres-cluster.ts).
 */
import { constants } from 'node:fs'
import { access, readdir } from 'node:fs/promises'
import { delimiter, join } from 'node:path'

export interface PostgresBinaries {
  /** The directory both came from. */
  dir: string
  initdb: string
  postgres: string
}

export const POSTGRES_BIN_VARIABLE = 'LEASECRON_TEST_POSTGRES_BIN'
const DEBIAN_ROOT = '/usr/lib/postgresql'

/** The first directory holding both executables; undefined when none does. */
export async function findPostgresBinaries(
  env: NodeJS.ProcessEnv = process.env,
  debianRoot = DEBIAN_ROOT,
): Promise<PostgresBinaries | undefined> {
  const chosen = env[POSTGRES_BIN_VARIABLE]
  const candidates = chosen
    ? [chosen]
    : [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...(await debianDirs(debianRoot))]
  for (const dir of candidates) {
    const found = { dir, initdb: join(dir, 'initdb'), postgres: join(dir, 'postgres') }
    if ((await executable(found.initdb)) && (await executable(found.postgres))) return found
  }
  return undefined
}

/** /usr/lib/postgresql/<major>/bin, the highest major first (`17` before `15`, not as strings). */
async function debianDirs(root: string): Promise<string[]> {
  const majors = await readdir(root).catch(() => [] as string[])
  return majors
    .filter((m) => /^\d+(\.\d+)?$/.test(m))
    .sort((a, b) => Number(b) - Number(a))
    .map((m) => join(root, m, 'bin'))
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  )
}
