// A browser suite: one real server (scripted agent) and one headless Chromium shared by the suite's
// tests, started before them and closed after; `run()` runs the suite, or skips it with one line
// outside CI when Chromium is missing (see chromiumAvailable).
import { suite } from 'uvu'
import { chromiumAvailable, launchBrowser, type Browser } from './browser.js'
import { serve, type Served } from './server.js'

export const browserSuite = (name: string) => {
  const test = suite(name)
  const env = {} as { browser: Browser; server: Served }
  test.before(async () => {
    env.server = await serve()
    env.browser = await launchBrowser()
  })
  test.after(async () => {
    await env.browser?.close()
    await env.server?.close()
  })
  const run = () => {
    if (chromiumAvailable(name)) test.run()
  }
  return { test, env, run }
}
