/**
 * The pages whose fenced blocks the block tests run — the README and the guide in docs/ (decision records
 * included) — read as `readmeBlocks` reads one, each block knowing the page it came from, so that a block
 * moved from the README into the guide keeps its runner and a failure names the page and line.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ReadmeBlock, readmeBlocks } from './readme-blocks.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface PageBlock extends ReadmeBlock {
  /** The page, relative to the repository's root (`README.md`, `docs/nets.md`). */
  file: string
}

/** The pages, relative to the root: the README first, then docs/*.md and docs/decisions/*.md by name. */
export function pages(): string[] {
  const markdown = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`)
  return ['README.md', ...markdown('docs'), ...markdown('docs/decisions')]
}

/** Every fenced block of every page, in page order. */
export function pageBlocks(): PageBlock[] {
  return pages().flatMap((file) =>
    readmeBlocks(readFileSync(join(ROOT, file), 'utf8'), file).map((block) => ({ ...block, file })),
  )
}

/** Where a block is, for a failure message: `docs/nets.md line 150`. */
export function where(block: PageBlock): string {
  return `${block.file} line ${block.line}`
}
