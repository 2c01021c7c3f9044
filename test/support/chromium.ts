/**
 * Headless Chromium for browser tests: Debian's `chromium` package driven by playwright-core (which
 * downloads no browser of its own). Missing Chromium fails the calling test with how to install it —
 * never a silent skip.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM_PATH = process.env.LEASECRON_CHROMIUM ?? '/usr/bin/chromium'

/** Launches headless Chromium; throws naming the path and the install command when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser test needs Chromium at ${CHROMIUM_PATH} and it is missing: install Debian's package ` +
        '(`apt-get update && apt-get install -y chromium`; .ci/run does this) or set LEASECRON_CHROMIUM to a Chromium binary.',
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
