// Headless Debian Chromium through playwright-core, for the browser specs and the web benchmark:
// a fresh profile per launch, no network beyond loopback. Outside CI a missing /usr/bin/chromium
// skips the browser specs with one line; in CI (CI=true) it is a failure (.ci/run installs it).
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { noteSkipped } from '../../helpers/skipped.js'

export const CHROMIUM = '/usr/bin/chromium'
export const SCREENSHOTS = fileURLToPath(new URL('../../../tmp/screenshots/', import.meta.url))

const ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
]

/** False (after one line saying why) when the browser specs cannot run here; throws in CI. */
export const chromiumAvailable = (what: string): boolean => {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI) throw new Error(`${what}: ${CHROMIUM} is missing in CI; .ci/run installs it with apt-get install -y chromium.`)
  console.log(`${what}: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`)
  noteSkipped(what, 'Chromium')
  return false
}

export interface Browser {
  context: BrowserContext
  /** Uncaught errors thrown in any page (specs check it stays empty). */
  errors: string[]
  page(): Promise<Page>
  close(): Promise<void>
}

export const launchBrowser = async (): Promise<Browser> => {
  const profile = await mkdtemp(join(tmpdir(), 'agentlog-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 800 },
  })
  context.setDefaultTimeout(10_000)
  const errors: string[] = []
  context.on('weberror', (e) => errors.push(e.error().message))
  const pages = new Set<Page>(context.pages())
  return {
    context,
    errors,
    page: async () => {
      const unused = [...pages].find((p) => p.url() === 'about:blank')
      if (unused) {
        pages.delete(unused)
        return unused
      }
      return context.newPage()
    },
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

export const screenshot = async (page: Page, name: string): Promise<string> => {
  await mkdir(SCREENSHOTS, { recursive: true })
  const path = `${SCREENSHOTS}${name}.png`
  await page.screenshot({ path })
  return path
}
