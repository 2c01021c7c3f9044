import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { imageRuntime } from '../../bench/peers-thousand-systems.js'

describe('the thousand-schedules bench runs leasecron (image) on the runtime the Dockerfile ships', () => {
  it('reads the ENTRYPOINT flags and NODE_OPTIONS from the repository Dockerfile', () => {
    const runtime = imageRuntime()
    expect(runtime.nodeOptions, 'the image variant would run without the image memory flag').toBe(
      '--max-semi-space-size=1',
    )
    expect(runtime.nodeFlags, 'the image variant would run with other V8 flags than the image').toEqual([
      '--no-opt',
      '--no-maglev',
    ])
  })

  it('refuses a Dockerfile that names no NODE_OPTIONS, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasecron-image-runtime-'))
    const path = join(dir, 'Dockerfile')
    writeFileSync(path, 'FROM node:24-slim\nENTRYPOINT ["node", "--no-opt", "x.js"]\n')
    expect(() => imageRuntime(path)).toThrow(`${path} names no ENV NODE_OPTIONS`)
  })
})
