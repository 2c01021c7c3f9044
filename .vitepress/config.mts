/**
 * The documentation site (`npm run docs`): the README as its home, docs/ (with the decision records) as
 * its guide, the CHANGELOG, and the API reference TypeDoc writes into docs/public/api. VitePress was chosen
 * over Starlight: it renders the repository's own Markdown files in place (no content collection to copy
 * them into), its build fails on a dead link between pages by default, and its only runtime is Vue.
 *
 * Links to repository files that are not pages (deploy/…, test/…) are left to the repository: the site
 * checks links between its pages, not into the source tree.
 */
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitepress'

const GUIDE = [
  ['Installing', '/docs/install'],
  ['The built-in nets', '/docs/built-in-nets'],
  ['Writing your own net', '/docs/nets'],
  ['Shapes', '/docs/shapes'],
  ['Serverless functions', '/docs/serverless'],
  ['Using leasecron as a library', '/docs/library'],
  ['Lease and ledger semantics', '/docs/semantics'],
  ['Schedules', '/docs/schedules'],
  ['Pause, resume and run now', '/docs/controls'],
  ['One App, many installations', '/docs/installations'],
  ['Configuration', '/docs/configuration'],
  ['The CLI', '/docs/cli'],
  ['Operations', '/docs/operations'],
  ['Security notes', '/docs/security'],
  ['Reliability', '/docs/reliability'],
  ['Architecture', '/docs/architecture'],
  ['Developing leasecron', '/docs/development'],
  ['Benchmarks', '/docs/benchmarks'],
  ['Decision records', '/docs/decisions/'],
  ['Changes', '/CHANGELOG'],
] as const

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, each space a hyphen. */
function githubAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
}

export default defineConfig({
  title: 'leasecron',
  description:
    'Periodic idempotent jobs on cron schedules, one elected replica per job through a named lease in MongoDB',
  srcExclude: [
    '**/node_modules/**',
    'bench/**',
    'src/**',
    'test/**',
    'examples/**',
    'deploy/**',
    'tools/**',
    'dist/**',
    '.cache/**',
  ],
  rewrites: { 'README.md': 'index.md', 'docs/decisions/README.md': 'docs/decisions/index.md' },
  outDir: '.cache/site',
  // The guide links to the examples' source files (docs/nets.md, docs/library.md): served as they are, so a
  // reader of the site follows those links as a reader of the repository does.
  buildEnd: ({ outDir }) => {
    cpSync(fileURLToPath(new URL('../examples', import.meta.url)), join(outDir, 'examples'), {
      recursive: true,
    })
  },
  cacheDir: '.cache/vitepress',
  // TypeDoc's HTML is copied as it is: the site links to it, VitePress does not render it.
  vite: { publicDir: fileURLToPath(new URL('../docs/public', import.meta.url)) },
  cleanUrls: false,
  // VitePress checks links to pages (written without .md); one into a tree the site leaves out
  // (bench/NOTES.md, src/forge/README.md) is a repository file for readers of the repository.
  ignoreDeadLinks: [/(^|\/)(bench|src|test|examples|deploy|tools)\//],
  // The pages are the repository's Markdown, which writes `<net>` in prose and holds no HTML of its own:
  // read as text, not as Vue components.
  markdown: {
    // GitHub's anchors, so that a link such as docs/schedules.md#start-and-end-start_at-and-end_at leads to
    // the same heading on GitHub and on the site (VitePress's own slugs turn `_` and `'` into hyphens).
    anchor: { slugify: githubAnchor },
    config: (md) => {
      md.set({ html: false })
      // GitHub shows a folder's README.md as its page; the site builds it as index.html (`rewrites`), and
      // VitePress does not apply rewrites to links: so a link to README.md goes to index.md, before
      // VitePress resolves it (and checks it).
      md.core.ruler.push('readme-links', (state) => {
        for (const child of state.tokens.flatMap((token) => token.children ?? []))
          if (child.type === 'link_open') {
            const href = child.attrGet('href') ?? ''
            if (!/^[a-z]+:/i.test(href))
              child.attrSet('href', href.replace(/(^|\/)README\.md(?=#|$)/, '$1index.md'))
          }
      })
    },
  },
  // {{ and }} in the Markdown (Prometheus's `{{ $labels.net }}`) are text, not Vue interpolations.
  vue: { template: { compilerOptions: { delimiters: ['{%{', '}%}'] } } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/docs/configuration' },
      { text: 'API', link: '/api/index.html', target: '_self' },
      { text: 'Changes', link: '/CHANGELOG' },
    ],
    sidebar: [
      { text: 'Guide', items: GUIDE.map(([text, link]) => ({ text, link })) },
      { text: 'Reference', items: [{ text: 'API (TypeDoc)', link: '/api/index.html', target: '_self' }] },
    ],
    search: { provider: 'local' },
  },
})
