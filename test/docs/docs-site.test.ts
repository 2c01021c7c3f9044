/**
 * The documentation site (`npm run docs`: TypeDoc's API reference, then VitePress over the README, docs/
 * and the CHANGELOG), run by `npm run test:docs` (vitest.docs.config.ts; not by `npm test`): built here, served by VitePress's own preview server, and read in
 * Chromium — the home page (the README), a guide page whose `<NET>` placeholders must stay text, and one
 * API reference page. A dead link between pages fails the build (VitePress's check; tried with a link
 * to a page that does not exist); and every link of the built pages must lead to a file the site has,
 * which VitePress's check does not see when a source link is right but its rewritten page is not (a link to
 * README.md, which the site builds as index.html).
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Browser } from 'playwright-core'
import { serve } from 'vitepress'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/chromium.js'
import { freePort } from '../support/free-port.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
let browser: Browser | undefined
let server: Awaited<ReturnType<typeof serve>>['server'] | undefined
let base = ''

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'docs'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
  const port = await freePort()
  server = (await serve({ root: ROOT, port })).server
  base = `http://127.0.0.1:${port}`
  browser = await launchChromium()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
})

/** Opens `path` of the site; its h1 text, its title and the errors the page logged. */
async function open(path: string) {
  const page = await browser!.newPage()
  const errors: string[] = []
  // A missing resource is named by its response (the console says only "Failed to load resource").
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text())
  })
  page.on('response', (answer) => {
    // Chromium asks every site for a favicon; the site has none.
    if (answer.status() >= 400 && !answer.url().endsWith('/favicon.ico'))
      errors.push(`${answer.status()} ${answer.url()}`)
  })
  page.on('pageerror', (error) => errors.push(String(error)))
  const response = await page.goto(`${base}${path}`)
  const h1 = (await page.locator('h1').first().textContent()) ?? ''
  const title = await page.title()
  const text = (await page.locator('main').textContent()) ?? ''
  const links = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
  await page.close()
  return { status: response?.status(), h1, title, text, links, errors }
}

describe('the documentation site', () => {
  it('opens on the README, with the guide and the API reference linked', async () => {
    const home = await open('/')
    expect(home.status).toBe(200)
    expect(home.h1).toMatch(/^leasecron/)
    expect(home.title).toMatch(/leasecron/)
    expect(home.errors, 'the home page logged errors').toEqual([])
    expect(home.links, 'the guide or the API reference is not linked').toEqual(
      expect.arrayContaining(['/docs/configuration.html', '/api/index.html']),
    )
  }, 60_000)

  it('shows a guide page with its placeholders as text', async () => {
    const configuration = await open('/docs/configuration.html')
    expect(configuration.status).toBe(200)
    expect(configuration.text, 'the page lost `<NET>` to the HTML parser').toContain(
      'LEASECRON_NET_<NET>_DAY_MATCH',
    )
  }, 60_000)

  it('links only to files it built, and to sections those pages have', () => {
    const site = join(ROOT, '.cache/site')
    // The guide's pages, not TypeDoc's; a link into a source tree the site leaves out is the repository's.
    // The examples are served (config.mts copies them): a link to one must lead to it on the site too.
    const html = readdirSync(site, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.html') && !file.startsWith('api/'),
    )
    expect(html.length, 'the site built too few pages').toBeGreaterThan(15)
    const read = (file: string) => readFileSync(join(site, file), 'utf8')
    const dead = html.flatMap((file) =>
      [...read(file).matchAll(/href="([^"#?]*)(?:\?[^"#]*)?(?:#([^"]*))?"/g)]
        .filter(([, href]) => !/^[a-z]+:|^\/\/|(^|\/)(bench|src|test|deploy|tools)\//.test(href!))
        .map(([, href, anchor]) => ({ target: href ? sitePath(file, href) : file, href, anchor }))
        .filter(({ target, anchor }) =>
          !existsSync(join(site, target))
            ? true
            : anchor !== undefined &&
              anchor !== '' &&
              target.endsWith('.html') &&
              !read(target).includes(`id="${anchor}"`),
        )
        .map(({ href, anchor }) => `${file}: ${href}${anchor ? `#${anchor}` : ''}`),
    )
    expect(dead, 'links of the built site that lead to no file, or to no section of it').toEqual([])
  })

  it('shows an API reference page from TypeDoc', async () => {
    const file = join(ROOT, '.cache/site/api/functions/index.defineNet.html')
    expect(existsSync(file), 'TypeDoc wrote no defineNet page into the site').toBe(true)
    const browserPage = await browser!.newPage()
    const response = await browserPage.goto(`${base}/api/functions/index.defineNet.html`)
    expect(response?.status()).toBe(200)
    expect(await browserPage.locator('h1').first().textContent()).toContain('defineNet')
    await browserPage.close()
  }, 60_000)
})

/** The file a link of the built page `file` leads to, relative to the site's root (a folder: its index). */
function sitePath(file: string, href: string): string {
  const path = href.startsWith('/') ? href : posix.join(dirname(file), href)
  return path.endsWith('/') ? `${path}index.html` : path
}
