/**
 * `npm test`: the suite through vitest, and — only when the run's shared FerretDB died under it on its
 * SQLite backend — once more for the files that failed.
 *
 * FerretDB is the test server of machines without mongod. On SQLite it can crash (SIGBUS in SQLite's WAL
 * index, a Go panic) in a long run. The global setup says each death, restarts the server and records
 * the deaths in the file named by LEASECRON_TEST_DEATHS_FILE (test/support/global-setup.ts); the files
 * that used it while it was down fail for the server, not for their code. When a whole-suite run failed
 * and a SQLite death was recorded, the failed files, and only those, run again once on a fresh server, and
 * the result is that run's. The death and the second run are both said.
 *
 * On PostgreSQL, the default backend where its binaries are found, no death is known or expected: one
 * fails the run, also when every test passed, and nothing runs again.
 *
 * It is not a retry of flaky tests: without a death a failure stands, and a focused run (`npm test --
 * <files or options>`) runs once, as given.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
/** Each run's vitest report and FerretDB deaths, kept (gitignored) until the next `npm test`. */
const records = join(root, '.cache', 'test-run')

/** Runs `vitest run` with `args`, recording its report and its FerretDB deaths in `dir`; resolves its exit code. */
function runVitest(args, dir) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const report = join(dir, 'report.json')
  const deaths = join(dir, 'deaths.json')
  const reporters = args.some((a) => a.startsWith('--reporter')) ? [] : ['--reporter=default']
  const child = spawn(
    process.execPath,
    [vitest, 'run', ...reporters, '--reporter=json', `--outputFile.json=${report}`, ...args],
    { cwd: root, stdio: 'inherit', env: { ...process.env, LEASECRON_TEST_DEATHS_FILE: deaths } },
  )
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })
}

/** What a finished run left: its recorded FerretDB deaths and the files the report lists as failed. */
export function readRun(dir) {
  const read = (name) => {
    const file = join(dir, name)
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
  }
  const deaths = read('deaths.json') ?? []
  const report = read('report.json')
  const failed = (report?.testResults ?? []).filter((r) => r.status === 'failed').map((r) => r.name)
  return { deaths, failed, reported: report !== undefined }
}

/**
 * Which files run again: the failed ones, when a whole-suite run failed while its FerretDB died and its
 * report names them; otherwise none, with the reason (said when the run failed).
 */
export function filesToRunAgain({ exitCode, args, deaths, failed, reported }) {
  if (exitCode === 0) return { files: [], why: 'the run passed' }
  if (deaths.length === 0) return { files: [], why: 'the run failed and its Mongo server did not die' }
  if (deathsOnPostgres(deaths).length > 0)
    return {
      files: [],
      why: 'its FerretDB died on PostgreSQL, where no death is known: that is a failure to look into',
    }
  if (args.length > 0) return { files: [], why: 'a focused run (arguments given) runs once, as given' }
  if (!reported || failed.length === 0)
    return { files: [], why: 'the run failed before its report named a failed file' }
  return { files: failed, why: `its FerretDB died ${deaths.length} time(s) during the run` }
}

/** The deaths of FerretDB (or of the cluster under it) on PostgreSQL: each fails the run. */
export function deathsOnPostgres(deaths) {
  return deaths.filter((death) => death.backend === 'postgresql')
}

function say(line) {
  process.stderr.write(`test: ${line}\n`)
}

async function main() {
  const args = process.argv.slice(2)
  const first = join(records, 'first')
  const second = join(records, 'second')
  rmSync(second, { recursive: true, force: true })
  const exitCode = await runVitest(args, first)
  const run = readRun(first)
  const { files, why } = filesToRunAgain({ exitCode, args, ...run })
  const fatal = deathsOnPostgres(run.deaths)
  if (fatal.length > 0) {
    say(
      `FAILED: the run's FerretDB on PostgreSQL died ${fatal.length} time(s) (pids ${fatal.map((d) => d.pid).join(', ')}; ` +
        `each said above, with its last lines, and in ${relative(root, join(first, 'deaths.json'))}). ` +
        'That is not a known fault of this backend: nothing runs again, and the run fails whatever its tests did.',
    )
    return exitCode === 0 ? 1 : exitCode
  }
  if (files.length === 0) {
    if (exitCode !== 0 && run.deaths.length > 0) say(`the failed files are not run again: ${why}`)
    return exitCode
  }
  const names = files.map((f) => relative(root, f))
  say(
    `${files.length} file(s) failed and ${why}; they run again once, on a fresh server: ${names.join(', ')}`,
  )
  const again = await runVitest(files, second)
  const rerun = readRun(second)
  say(
    again === 0
      ? `the ${files.length} file(s) passed on the second run: the first run's failures were the server's death`
      : `the second run failed too (${rerun.failed.map((f) => relative(root, f)).join(', ') || 'see above'}): ` +
          'those failures are not the death’s',
  )
  return again
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main()
