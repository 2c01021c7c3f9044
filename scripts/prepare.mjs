// `npm install` / `npm ci` run this (the `prepare` lifecycle), so `npx leasecron` works right after a
// plain install. It builds through `npm run build` (`tsc -b`, incremental: an up-to-date dist/ is left
// as it is). A production install (`npm ci --omit=dev`) has no TypeScript: it says so in one line and
// succeeds, since such an install takes dist/ from a build (the Dockerfile's build stage copies it).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

try {
  createRequire(import.meta.url).resolve('typescript')
} catch {
  console.log(
    'leasecron: dev dependencies are not installed, so dist/ was not built (run `npm run build` where they are)',
  )
  process.exit(0)
}
const build = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
process.exit(build.status ?? 1)
