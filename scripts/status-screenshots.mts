// Saves the status page of a running worker as docs/status-light.png and docs/status-dark.png, through
// Debian's Chromium (as the browser test does). Usage: node --import tsx scripts/status-screenshots.mts URL
import { launchChromium } from '../test/support/chromium.ts'

const url = process.argv[2] ?? 'http://127.0.0.1:8080/'
const browser = await launchChromium()
try {
  for (const colorScheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({ colorScheme, viewport: { width: 960, height: 800 } })
    await page.goto(url)
    await page.screenshot({ path: `docs/status-${colorScheme}.png`, fullPage: true })
    console.log(`docs/status-${colorScheme}.png`)
    await page.close()
  }
} finally {
  await browser.close()
}
