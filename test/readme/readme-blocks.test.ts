/**
 * Every fenced block of the README and of the guide (docs/*.md) is run here, as written, or says in its
 * fence why it cannot be; a block has the same runners whichever page holds it:
 *
 * - `run=tour`: the five-minute tour, its blocks in order as one shell session (free port for 8080, the
 *   test Mongo for 127.0.0.1:27017), against the built CLI and the sandbox forge;
 * - `run=cli`: one shell block against the built CLI, with the test Mongo as MONGO_URI; `stdout=comments`
 *   also holds the command's output to the `# …` lines the block shows under it;
 * - `file=NAME`: written to a directory inside the repository (so `leasecron` resolves to this package),
 *   type-checked together with `tsc` against the built package's declarations; `run=vitest` files are
 *   then imported into this test file (their tests run here), `run=coordinator` is started as a process,
 *   sent SIGTERM, and must exit within 5 s; `run=module` files are imported by the others;
 * - `run=scaled-demo`: run by test/e2e/scaled-demo.test.ts;
 * - `run=admin`, `run=install` (and the `answer-of=admin` sample): run by docs-blocks.test.ts.
 *
 * A block with none of these and no `no-run: <reason>` fails the first test, so a new block cannot rot.
 * The pages' links to sections, and the nets' option defaults their tables give (against
 * `leasecron config`), are checked too.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort } from '../support/free-port.js'
import { mongoServer } from '../support/mongo.js'
import { type PageBlock, pageBlocks, pages, where } from '../support/page-blocks.js'
import { deadLinks } from '../support/page-links.js'
import { REAP, runShell } from '../support/shell-block.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const RUNNERS = ['tour', 'cli', 'module', 'vitest', 'coordinator', 'scaled-demo', 'admin', 'install']
const blocks = pageBlocks()
const runs = (kind: string) => blocks.filter((b) => b.noRun === undefined && b.tags.run === kind)

// Inside the repository, so that `leasecron`, `mongodb` and `vitest` resolve as in a user's project.
const DIR = join(ROOT, '.cache', 'readme-blocks')
rmSync(DIR, { recursive: true, force: true })
mkdirSync(DIR, { recursive: true })
for (const block of blocks.filter((b) => b.tags.file)) writeFileSync(join(DIR, block.tags.file!), block.text)

beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built, so the pages' blocks cannot run: ${buildError}`)
})

describe('the README and the guide', () => {
  it('run every block here or say in its fence why they cannot', () => {
    expect(blocks.filter((b) => b.file !== 'README.md').length, 'no block read from docs/').toBeGreaterThan(5)
    const untagged = blocks.filter((b) =>
      b.noRun === undefined ? !RUNNERS.includes(b.tags.run ?? '') && !b.tags['answer-of'] : !b.noRun,
    )
    expect(
      untagged.map((b) => `${where(b)}: \`\`\`${b.lang} ${JSON.stringify(b.tags)}`),
      'these blocks are neither run by a test nor tagged `no-run: <reason>`: they can rot unseen',
    ).toEqual([])
    const unnamed = blocks.filter(
      (b) => ['module', 'vitest', 'coordinator'].includes(b.tags.run ?? '') && !b.tags.file,
    )
    expect(unnamed.map(where), 'a TypeScript block to run needs file=NAME').toEqual([])
    const named = blocks.filter((b) => b.tags.file).map((b) => b.tags.file!)
    expect(
      named.filter((name, i) => named.indexOf(name) !== i),
      'two blocks write the same file: one would silently replace the other',
    ).toEqual([])
  })

  it('link only to files and sections there are', () => {
    expect(deadLinks(), 'links that lead nowhere').toEqual([])
  })

  it('has TypeScript blocks that type-check against the built package', async () => {
    const files = blocks.filter((b) => b.tags.file?.endsWith('.ts')).map((b) => b.tags.file!)
    writeFileSync(
      join(DIR, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files,
      }),
    )
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', join(DIR, 'tsconfig.json')], {
      cwd: DIR,
    }).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    )
    expect(result, 'a TypeScript block does not compile against the built package').toBe('')
  }, 120_000)
})

/** Runs `script` with bash in DIR under a clean environment; resolves its exit code and output. */
function bash(script: string, env: Record<string, string>, timeoutMs: number) {
  return runShell(script, DIR, env, timeoutMs)
}

/**
 * The README's text with the machine's free port for 8080, the test Mongo for 127.0.0.1:27017, and the
 * clone's own bundle for `dist/…` (the blocks run in DIR, not the clone's root).
 */
function onThisMachine(text: string, port: number, db: string): string {
  return text
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
    .replaceAll('mongodb://127.0.0.1:27017/', mongoServer().url)
    .replaceAll('MONGO_DB=leasecron_tour', `MONGO_DB=${db}`)
    .replaceAll('node dist/bundle/leasecron.js', `node ${join(ROOT, 'dist/bundle/leasecron.js')}`)
}

describe('the five-minute tour', () => {
  it('starts the worker, reads the page, runs once, status, history and config as written', async () => {
    const port = await freePort()
    const db = `t_readme_tour_${process.pid}`
    const script = runs('tour')
      .map((b) => b.text)
      .join('\n')
    expect(script, 'the README lost its tour').toContain('leasecron.js run')
    expect(
      runs('tour').map((b) => b.file),
      'the tour is the README’s',
    ).toEqual(runs('tour').map(() => 'README.md'))
    const result = await bash(REAP + onThisMachine(script, port, db), { PORT: String(port) }, 150_000)
    const out = `${result.stdout}\n--- stderr ---\n${result.stderr}`
    expect(result.code, `the tour failed:\n${out}`).toBe(0)
    expect(result.stdout, 'the page’s JSON did not come').toContain('"schema"')
    expect(result.stdout, '`once` did not run the sweeper').toMatch(/merge-gate-sweeper.*\bran\b/)
    expect(result.stdout, '`status` printed no table').toMatch(/^LEASE\s+HOLDER\s+FENCE/m)
    expect(result.stdout, '`history` listed no run of the `once` pass').toMatch(/board-issue-sync|ok/)
  }, 180_000)
})

describe('the figures the pages quote', () => {
  it("give each built-in net's defaults as `leasecron config` prints them", async () => {
    const { readFile } = await import('node:fs/promises')
    const markdown = (await Promise.all(pages().map((file) => readFile(join(ROOT, file), 'utf8')))).join('\n')
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist/bundle/leasecron.js'), 'config'],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } },
    )
    const config = JSON.parse(stdout) as {
      nets: { name: string; schedule: string; options: Record<string, unknown> }[]
    }
    const rows = [...markdown.matchAll(/^\| `LEASECRON_NET_([A-Z_]+)` \| `([^`]+)` \|/gm)]
    expect(rows.length, "the pages lost their tables of the nets' options").toBeGreaterThan(5)
    for (const [, variable, shown] of rows) {
      const printed = config.nets.find((n) =>
        variable!.startsWith(`${n.name.toUpperCase().replaceAll('-', '_')}_`),
      )
      expect(printed, `a page names a net config does not know: LEASECRON_NET_${variable}`).toBeDefined()
      const key = variable!.slice(printed!.name.length + 1)
      const value = key === 'SCHEDULE' ? printed!.schedule : String(printed!.options[key])
      expect(value, `a page gives LEASECRON_NET_${variable} a default config does not print`).toBe(shown)
    }
  }, 60_000)
})

describe('the CLI blocks', () => {
  for (const [index, block] of runs('cli').entries()) {
    it(`run as written (${where(block)})`, async () => {
      const port = await freePort()
      const env = {
        MONGO_URI: mongoServer().url,
        MONGO_DB: `t_readme_cli_${index}_${process.pid}`,
        PORT: String(port),
      }
      const result = await bash(REAP + onThisMachine(block.text, port, env.MONGO_DB), env, 120_000)
      expect(result.code, `${where(block)} failed:\n${result.stdout}\n${result.stderr}`).toBe(0)
      if (block.tags.stdout === 'comments') expectCommentedOutput(block, result.stdout)
    }, 150_000)
  }
})

/** The `# …` lines under the block's command are what it prints, spacing aside. */
function expectCommentedOutput(block: PageBlock, stdout: string): void {
  const squash = (s: string) => s.trim().replace(/\s+/g, ' ')
  const printed = stdout.split('\n').map(squash)
  const shown = block.text
    .split('\n')
    .filter((l) => l.startsWith('# '))
    .map((l) => squash(l.slice(2)))
  expect(shown.length, 'the block shows no output to compare').toBeGreaterThan(0)
  for (const line of shown)
    expect(printed, `${where(block)} shows output the command does not print`).toContain(line)
}

describe('the node-cron program', () => {
  for (const block of runs('coordinator')) {
    it(`runs its fires and exits within 5 s of SIGTERM, its MongoClient closed (${where(block)})`, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', block.tags.file!], {
        cwd: DIR,
        env: {
          PATH: process.env.PATH ?? '',
          MONGO_URI: mongoServer().url,
          MONGO_DB: `t_readme_cron_${process.pid}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (d: Buffer) => {
        output += d
      })
      child.stderr.on('data', (d: Buffer) => {
        output += d
      })
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      )
      const started = Date.now()
      while (!output.includes('digest sent')) {
        if (Date.now() - started > 60_000 || child.exitCode !== null) {
          child.kill('SIGKILL')
          throw new Error(`the program never ran a fire:\n${output}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const signalledAt = Date.now()
      child.kill('SIGTERM')
      const timeout = setTimeout(() => child.kill('SIGKILL'), 20_000)
      const end = await exited
      clearTimeout(timeout)
      const exitMs = Date.now() - signalledAt
      expect(end, `the program did not exit by itself after SIGTERM:\n${output}`).toEqual({
        code: 0,
        signal: null,
      })
      expect(exitMs, 'a rollout would wait for this program: it exits long after SIGTERM').toBeLessThan(5_000)
    }, 90_000)
  }
})

// The pages' test files, imported here: their tests run as part of this file.
for (const block of runs('vitest')) await import(pathToFileURL(join(DIR, block.tags.file!)).href)
