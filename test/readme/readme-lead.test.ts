/**
 * The README leads (issue 41): a front page of at most 400 lines — what leasecron is and is not, the set-up,
 * the tour, one example per shape — whose reference lives in the guide. So it must stay short, link to
 * every page of the guide, and every page of the guide must be in the site's sidebar, where a reader of
 * the site finds it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pages, ROOT } from '../support/page-blocks.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
/** docs/*.md and the decision records' index, as the README and the sidebar name them. */
const guide = pages().filter((p) => /^docs\/[^/]+\.md$/.test(p) || p === 'docs/decisions/README.md')

describe('the README', () => {
  it('stays within 400 lines', () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)
    expect(lines, 'the README outgrew a front page: move the reference into docs/').toBeLessThanOrEqual(400)
  })

  it('links to every page of the guide', () => {
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)(#[^)]*)?\)/g)].map((m) => m[1]))
    expect(
      guide.filter((page) => !linked.has(page)),
      'pages of the guide the README does not lead to',
    ).toEqual([])
  })
})

describe('the site', () => {
  it('lists every page of the guide in its sidebar', () => {
    const config = readFileSync(join(ROOT, '.vitepress/config.mts'), 'utf8')
    const sidebar = new Set([...config.matchAll(/'(\/docs\/[^']*)'/g)].map((m) => m[1]))
    const route = (page: string) => `/${page.replace(/README\.md$/, '').replace(/\.md$/, '')}`
    expect(
      guide.filter((page) => !sidebar.has(route(page))),
      'pages of the guide the site’s sidebar does not list',
    ).toEqual([])
  })
})
