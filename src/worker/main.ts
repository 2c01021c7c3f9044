#!/usr/bin/env node
/** The process entry: runs the CLI and exits with its code (`run` exits from its signal handlers). */
import { main } from './cli.js'

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`leasecron: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  },
)
