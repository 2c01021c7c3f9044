/**
 * The harness finds PostgreSQL's server binaries where Debian's package puts them (not on PATH), the
 * newest major first, takes a directory only with both binaries in it, and looks only where
 * LEASECRON_TEST_POSTGRES_BIN says when it is set.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findPostgresBinaries, POSTGRES_BIN_VARIABLE } from './postgres-binaries.js'

const root = mkdtempSync(join(tmpdir(), 'leasecron-pg-bin-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A directory holding executables named `names`. */
function binDir(path: string, names: string[]): string {
  const dir = join(root, path)
  mkdirSync(dir, { recursive: true })
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n')
    chmodSync(join(dir, name), 0o755)
  }
  return dir
}

describe('where PostgreSQL’s binaries are', () => {
  const debian = join(root, 'usr-lib-postgresql')
  binDir('usr-lib-postgresql/9/bin', ['initdb', 'postgres'])
  const v15 = binDir('usr-lib-postgresql/15/bin', ['initdb', 'postgres'])
  binDir('usr-lib-postgresql/17/bin', ['initdb']) // a client-only install: no server binary
  const onPath = binDir('path-bin', ['initdb', 'postgres'])
  const empty = binDir('empty-bin', [])

  it('finds Debian’s /usr/lib/postgresql/<major>/bin off PATH, the newest complete major first', async () => {
    const found = await findPostgresBinaries({ PATH: empty }, debian)
    expect(found, '15 sorts below 9 as text; 17 has no postgres').toEqual({
      dir: v15,
      initdb: join(v15, 'initdb'),
      postgres: join(v15, 'postgres'),
    })
  })

  it('prefers PATH, and looks only where the variable says when it is set', async () => {
    expect((await findPostgresBinaries({ PATH: `${empty}:${onPath}` }, debian))?.dir).toBe(onPath)
    expect(
      await findPostgresBinaries({ PATH: onPath, [POSTGRES_BIN_VARIABLE]: empty }, debian),
    ).toBeUndefined()
    expect((await findPostgresBinaries({ PATH: empty, [POSTGRES_BIN_VARIABLE]: v15 }, debian))?.dir).toBe(v15)
  })

  it('finds none where there is none', async () => {
    expect(await findPostgresBinaries({ PATH: empty }, join(root, 'no-such-dir'))).toBeUndefined()
  })
})
