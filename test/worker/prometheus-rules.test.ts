/**
 * The shipped alert rules through the real promtool (Debian's `prometheus` package): `promtool check rules`
 * accepts deploy/prometheus/rules.yaml, and `promtool test rules` passes its unit tests
 * (deploy/prometheus/rules.test.yaml), which must make every alert fire at least once.
 *
 * Without promtool the tests cannot run: under CI=true that is a failure (.ci/run installs it), elsewhere
 * they are skipped with the command that installs it.
 */
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const run = promisify(execFile)
const INSTALL = 'apt-get install -y prometheus (Debian ships /usr/bin/promtool in it)'
const root = new URL('../../', import.meta.url).pathname
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0
const inCi = process.env.CI === 'true'

/** promtool's answer: its exit status and what it printed. */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: root, timeout: 60_000 })
    return { code: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

describe('the Prometheus alert rules', () => {
  if (!hasPromtool && inCi) {
    it('need promtool, which CI must install', () => {
      expect.fail(`promtool is not installed, so the alert rules go unchecked: ${INSTALL}`)
    })
    return
  }
  const needed = hasPromtool ? it : it.skip
  if (!hasPromtool)
    console.warn(`promtool missing: the alert-rule tests are skipped; install it with ${INSTALL}`)

  needed('pass `promtool check rules`', async () => {
    const { code, output } = await promtool('check', 'rules', 'deploy/prometheus/rules.yaml')
    expect(code, `Prometheus would refuse the rule file:\n${output}`).toBe(0)
  })

  needed('pass their unit tests in `promtool test rules`', async () => {
    const { code, output } = await promtool('test', 'rules', 'deploy/prometheus/rules.test.yaml')
    expect(code, `an alert fires when it should not, or not when it should:\n${output}`).toBe(0)
  })

  it('have a unit test in which each alert fires', () => {
    const read = (path: string) => parse(readFileSync(`${root}${path}`, 'utf8'))
    const alerts = read('deploy/prometheus/rules.yaml').groups.flatMap((g: { rules: { alert: string }[] }) =>
      g.rules.map((r) => r.alert),
    )
    const fired = new Set<string>(
      read('deploy/prometheus/rules.test.yaml').tests.flatMap(
        (t: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }) =>
          t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    )
    expect(
      alerts.filter((a: string) => !fired.has(a)),
      'an alert no test ever sees firing',
    ).toEqual([])
  })
})
