/**
 * The status page's admin buttons as an operator uses them: two real worker replicas on the test Mongo
 * with the admin API on, each page opened in headless Chromium (Debian's package, driven by
 * playwright-core) under the page's Content-Security-Policy. Pause is clicked on one replica's page
 * (the token typed once into the page's form), and the other replica's page shows the net paused;
 * Resume there asks for the token again (another origin, another tab's storage); Run now shows a manual
 * run in the run list. A worker without a token shows the buttons greyed, saying why.
 *
 * `innerText()` is Playwright's Locator method (the text as the page renders it), not a DOM node's
 * property, which biome's useDomNodeTextContent takes it for: biome.json turns that rule off here.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { launchChromium } from '../../support/chromium.js'
import { mongoServer } from '../../support/mongo.js'
import { statusLease as lease, statusTick as tick } from './fixtures/status-nets.js'

const TOKEN = 'browser-admin-token-6b1e9d0c2f7a'
let browser: Browser
const workers: Worker[] = []

beforeAll(async () => {
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
    sandbox: { generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 15 } },
  })
  workers.push(worker)
  await worker.start()
  return worker
}

/** The page in a fresh browser context (its own sessionStorage), recording errors and CSP violations. */
async function openPage(worker: Worker): Promise<{ page: Page; problems: () => Promise<string[]> }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('console', (m) => {
    // The one refusal the test provokes (a wrong token) is the browser's to log, not the page's error.
    if (m.type() === 'error' && !m.text().includes('status of 403')) errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript({
    content: `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline')))`,
  })
  await page.goto(`http://127.0.0.1:${worker.port}/`)
  const problems = async () => [...errors, ...((await page.evaluate('window.cspViolations')) as string[])]
  return { page, problems }
}

const net = (page: Page) => page.locator('section[data-net="status-tick"]')
const button = (page: Page, action: string) => net(page).locator(`button[data-action="${action}"]`)
const field = (page: Page, label: string) => net(page).locator(`dt:text-is("${label}") + dd`)

/**
 * Clicks an action (unless the page is already asking for the token for one); types the token into the
 * page's form when the page asks for it.
 */
async function click(page: Page, action: string, by?: string): Promise<void> {
  const form = page.locator('#admin-token')
  if (!(await form.isVisible())) await button(page, action).click()
  if (await form.isVisible()) {
    await page.locator('#admin-token-input').fill(TOKEN)
    if (by) await page.locator('#admin-by-input').fill(by)
    await form.locator('button[type="submit"]').click()
  }
}

describe('the status page’s admin buttons', () => {
  it('pause on one replica’s page is seen on the other’s; resume there; run now shows a manual run', async () => {
    const mongo = mongoServer()
    const env = {
      MONGO_URI: mongo.url,
      MONGO_DB: `buttons_${Date.now().toString(36)}`,
      LEASECRON_ADMIN_TOKEN: TOKEN,
    }
    const first = await startWorker({ ...env, LEASECRON_WORKER_ID: 'first' })
    const second = await startWorker({ ...env, LEASECRON_WORKER_ID: 'second' })
    const one = await openPage(first)
    const two = await openPage(second)
    await expect
      .poll(() => field(one.page, 'Holder').innerText(), { timeout: 30_000 })
      .not.toContain('nobody')

    await click(one.page, 'pause', 'ann')
    await expect
      .poll(() => one.page.locator('#admin-result').innerText(), { timeout: 10_000 })
      .toContain('status-tick: paused by ann')
    const stored = await one.page.evaluate('sessionStorage.getItem("leasecron-admin-token")')
    expect(stored, 'the token is not kept for the tab').toBe(TOKEN)
    expect(one.page.url(), 'the token reached the URL').not.toContain(TOKEN)
    expect(await one.page.context().cookies(), 'the token went into a cookie').toEqual([])

    await two.page.reload()
    expect(
      await field(two.page, 'Paused').innerText(),
      'the other replica does not show the pause',
    ).toContain('by ann')
    expect(await field(two.page, 'State').innerText()).toContain('paused')
    expect(await button(two.page, 'pause').getAttribute('title')).toBe('already paused: resume it first')

    // A wrong token is refused (403), forgotten, and asked for again; the right one then goes through.
    await button(two.page, 'resume').click()
    await two.page.locator('#admin-token-input').fill(`${TOKEN}-wrong`)
    await two.page.locator('#admin-token button[type="submit"]').click()
    await expect
      .poll(() => two.page.locator('#admin-result').innerText(), { timeout: 10_000 })
      .toContain('Refused: the bearer token is not')
    expect(await two.page.locator('#admin-token').isVisible(), 'the page did not ask again').toBe(true)
    expect(await two.page.evaluate('sessionStorage.getItem("leasecron-admin-token")')).toBeNull()
    await click(two.page, 'resume', 'bob')
    await expect
      .poll(() => two.page.locator('#admin-result').innerText(), { timeout: 10_000 })
      .toContain('status-tick resumed (it was paused by ann')
    await expect.poll(() => field(two.page, 'Paused').count(), { timeout: 10_000 }).toBe(0)

    await click(one.page, 'run')
    await expect
      .poll(() => one.page.locator('#admin-result').innerText(), { timeout: 10_000 })
      .toContain('run requested')
    const manual = net(one.page).locator('tbody tr', { hasText: '(manual)' })
    await expect.poll(() => manual.count(), { timeout: 30_000 }).toBeGreaterThan(0)
    expect(await one.problems(), 'the first page broke its policy or logged errors').toEqual([])
    expect(await two.problems(), 'the second page broke its policy or logged errors').toEqual([])
  }, 150_000)

  it('greys the buttons on a worker without LEASECRON_ADMIN_TOKEN, saying why', async () => {
    const worker = await startWorker({})
    const { page, problems } = await openPage(worker)
    for (const action of ['pause', 'resume', 'run']) {
      expect(await button(page, action).isDisabled(), `${action} is live without the admin API`).toBe(true)
      expect(await button(page, action).getAttribute('title')).toContain('LEASECRON_ADMIN_TOKEN is not set')
    }
    expect(await page.locator('#admin-token').count(), 'a token form without the admin API').toBe(0)
    expect(await problems()).toEqual([])
  }, 60_000)
})
