/**
 * The status page as an operator sees it: real workers on the sandbox forge (one on the memory store, two
 * replicas on the test Mongo), `/` opened in headless Chromium (Debian's package, driven by
 * playwright-core), read through what the page shows. Each page is saved as a PNG whose path is printed.
 *
 * `innerText()` is Playwright's Locator method (the text as the page renders it), not a DOM node's
 * property, which biome's useDomNodeTextContent takes it for: biome.json turns that rule off here.
 */
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { launchChromium } from '../../support/chromium.js'
import { mongoServer } from '../../support/mongo.js'
import { statusLease as lease, statusTick as tick } from './fixtures/status-nets.js'

const SHOTS = join(tmpdir(), `leasecron-status-${process.pid}`)
let browser: Browser
const workers: Worker[] = []

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true })
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await Promise.allSettled(workers.map((w) => w.stop()))
})

async function startWorker(env: Record<string, string>): Promise<Worker> {
  const worker = createWorker({
    nets: [tick],
    leases: [lease],
    env: { PORT: '0', LEASECRON_FORGE: 'sandbox', LOG_LEVEL: 'silent', ...env },
    sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 14 } },
  })
  workers.push(worker)
  await worker.start()
  return worker
}

/**
 * Opens the page, collecting console errors, failed requests and Content-Security-Policy violations (the
 * browser's own `securitypolicyviolation` events, recorded from before the page's first byte).
 */
async function openPage(
  worker: Worker,
): Promise<{ page: Page; errors: string[]; csp: string | undefined; violations: () => Promise<string[]> }> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } })
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  // A string, not a function: this project's types carry no DOM.
  await page.addInitScript({
    content: `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline')))`,
  })
  const response = await page.goto(`http://127.0.0.1:${worker.port}/`)
  const csp = (await response?.allHeaders())?.['content-security-policy']
  const violations = async (): Promise<string[]> => page.evaluate('window.cspViolations')
  return { page, errors, csp, violations }
}

/** The text a person reads next to a label of a net's section. */
function field(page: Page, net: string, label: string) {
  return page.locator(`section[data-net="${net}"] dt:text-is("${label}") + dd`)
}

/** Waits (through the page's own refresh) until the net shows a finished run. */
async function waitForFinishedRun(page: Page, net: string): Promise<string> {
  const row = page.locator(`section[data-net="${net}"] tbody tr.run-ok`).first()
  await row.waitFor({ timeout: 30_000 })
  return row.locator('td').nth(4).innerText()
}

async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SHOTS, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  console.log(`status page screenshot: ${path}`)
  return path
}

describe('the status page in a browser', () => {
  it('shows the memory worker as holder, its finished runs with durations and the forge chart, without console errors', async () => {
    const worker = await startWorker({})
    const { page, errors, csp, violations } = await openPage(worker)
    expect(csp, 'the page is served without a Content-Security-Policy').toMatch(
      /default-src 'none'.*script-src 'sha256-/,
    )
    await expect
      .poll(() => field(page, 'status-tick', 'Holder').innerText(), { timeout: 20_000 })
      .toContain('this replica')
    const duration = await waitForFinishedRun(page, 'status-tick')
    expect(duration, 'a finished run shows no duration').toMatch(/^\d+(\.\d)? (ms|s)$/)
    await expect
      .poll(() => page.locator('svg.chart[data-lane="status-tick"]').count(), { timeout: 20_000 })
      .toBe(1)
    expect(await page.locator('header').innerText()).toContain('refreshing every 5 s')
    const rateLimit = page.locator('section[aria-labelledby="h-forge"] tbody tr').first()
    expect(await rateLimit.innerText(), 'no rate limit shown against its limit').toMatch(/core\s+\d+ \/ \d+/)
    expect(await field(page, 'status-tick', 'Next fire').innerText()).toMatch(/\d{2}:\d{2}:\d{2} UTC/)
    // The page's own script runs under its policy: the pause control answers.
    await page.locator('#pause').click()
    await expect.poll(() => page.locator('#refresh-state').textContent()).toBe('paused')
    expect(await page.locator('#pause').textContent()).toBe('Resume')
    await page.locator('#pause').click()
    await expect.poll(() => page.locator('#refresh-state').textContent()).toBe('refreshing every 5 s')
    await screenshot(page, 'memory-worker')
    expect(await violations(), 'the page broke its own Content-Security-Policy').toEqual([])
    expect(errors, 'the page logged errors in the browser console').toEqual([])
    await page.close()
  }, 90_000)

  it('shows a net whose passes end sooner than its MIN_DURATION as too fast, in words', async () => {
    const worker = await startWorker({ LEASECRON_NET_STATUS_TICK_MIN_DURATION: '1h' })
    const { page, errors } = await openPage(worker)
    await waitForFinishedRun(page, 'status-tick')
    await expect
      .poll(() => field(page, 'status-tick', 'State').innerText(), { timeout: 20_000 })
      .toBe('too fast: its newest pass ended sooner than MIN_DURATION')
    await screenshot(page, 'too-fast')
    expect(errors, 'the page logged errors in the browser console').toEqual([])
    await page.close()
  }, 90_000)

  it('shows a net that ran its MAX_RUNS as finished, in words, not late', async () => {
    const worker = await startWorker({ LEASECRON_NET_STATUS_TICK_MAX_RUNS: '1' })
    const { page, errors } = await openPage(worker)
    // Its one pass counts whatever its outcome (a loaded machine may time it out), so no `ok` row is awaited.
    await expect
      .poll(() => field(page, 'status-tick', 'State').innerText(), { timeout: 60_000 })
      .toBe('finished: past its END_AT or its MAX_RUNS, it has no slot left')
    await screenshot(page, 'finished')
    expect(errors, 'the page logged errors in the browser console').toEqual([])
    await page.close()
  }, 90_000)

  it('on the second of two Mongo replicas names the first as the holder', async () => {
    const mongo = mongoServer()
    // A 30 s term, not the per-second schedule's short default: on a loaded machine a renewal bounded by
    // a third of a short TTL can miss, and the second replica would then rightly take the lease over.
    const env = {
      MONGO_URI: mongo.url,
      MONGO_DB: `status_${Date.now().toString(36)}`,
      LEASECRON_NET_STATUS_TICK_TTL_MS: '30000',
    }
    const first = await startWorker({ ...env, LEASECRON_WORKER_ID: 'first' })
    const firstPage = await openPage(first)
    await expect
      .poll(() => field(firstPage.page, 'status-tick', 'Holder').innerText(), { timeout: 30_000 })
      .toContain('this replica')
    const second = await startWorker({ ...env, LEASECRON_WORKER_ID: 'second' })
    const { page, errors, violations } = await openPage(second)
    const holder = await field(page, 'status-tick', 'Holder').innerText()
    expect(holder, 'the second replica does not name the first as holder').toContain(first.owner)
    expect(holder).toContain('another replica')
    await waitForFinishedRun(page, 'status-tick')
    expect(await page.locator('section[data-net] tbody tr.run-ok td:nth-child(2)').first().innerText()).toBe(
      first.owner,
    )
    expect(await page.locator('dt:text-is("Store") + dd').innerText()).toMatch(/Mongo.*answering/)
    await expect
      .poll(() => page.locator('svg.chart[data-lane="status-tick"]').count(), { timeout: 20_000 })
      .toBe(1)
    await screenshot(firstPage.page, 'mongo-first-replica')
    await screenshot(page, 'mongo-second-replica')
    expect(await violations(), 'the page broke its own Content-Security-Policy').toEqual([])
    expect(firstPage.errors, 'the first replica’s page logged console errors').toEqual([])
    expect(errors, 'the second replica’s page logged console errors').toEqual([])
  }, 120_000)
})
