/**
 * The scaled demo (the `run=scaled-demo` blocks of docs/shapes.md) never waits without a bound: every loop is
 * the one inside its `wait_for`, and `wait_for` itself, run by bash as the page writes it, gives up after its
 * limit naming what did not happen. (test/e2e/scaled-demo.test.ts runs the demo itself.)
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { pageBlocks } from '../support/page-blocks.js'

const demo = pageBlocks()
  .filter((b) => b.tags.run === 'scaled-demo')
  .map((b) => b.text)
  .join('\n')
/** The demo's `wait_for() { … }`, up to the first line that is a lone `}`. */
const waitFor = /^wait_for\(\) \{\n[\s\S]*?\n\}\n/m.exec(demo)?.[0]

async function bash(script: string): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await promisify(execFile)('bash', ['-c', script], { timeout: 20_000 })
    return { code: 0, stderr }
  } catch (error) {
    const failed = error as { code?: number; stderr?: string }
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '' }
  }
}

describe('the scaled demo’s waits', () => {
  it('are all bounded: the only loop is the one inside wait_for', () => {
    expect(waitFor, 'the scaled demo lost its wait_for').toBeDefined()
    const loops = demo.split('\n').filter((line) => /^\s*(until|while)\b/.test(line))
    expect(loops, 'a wait in the scaled demo can hang forever').toEqual(['  until "$@"; do'])
    expect(demo).toMatch(/wait_for \d+ "[^"]+" test -s sandbox\.env/)
  })

  it('give up after their limit, naming what did not happen, and pass once it does', async () => {
    const started = Date.now()
    const never = await bash(`${waitFor}\nwait_for 1 "the thing did not happen (see thing.log)" false`)
    expect(never.code, 'wait_for waited on a condition that never holds without failing').not.toBe(0)
    expect(never.stderr).toContain('gave up after 1 s: the thing did not happen (see thing.log)')
    expect(Date.now() - started, 'wait_for ran far past its limit').toBeLessThan(10_000)
    const soon = await bash(
      `${waitFor}\nf=$(mktemp -u)\n(sleep 1; touch "$f") &\nwait_for 10 "no file" test -e "$f"; rm -f "$f"`,
    )
    expect(soon.code, soon.stderr).toBe(0)
  })
})
