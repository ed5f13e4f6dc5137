// The sessions list pages through GET /sessions: with more sessions than one page (100) it shows
// the newest page first and a "More sessions" button, which loads the next page from the `next` cursor
// until every session is listed once; the periodic refresh keeps what was loaded.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chromiumAvailable, launchBrowser } from './helpers/browser.js'
import { TIMEOUT } from './helpers/page.js'
import { serve } from './helpers/server.js'

const test = suite('web/sessions')

test('more than 100 sessions: the newest 100, then "More sessions" lists every one once, newest first', async () => {
  const server = await serve()
  const browser = await launchBrowser()
  try {
    const created: string[] = []
    for (let i = 0; i < 230; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, 230 - i) }, () =>
        fetch(`${server.url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json() as Promise<{ session_id: string }>)))
      created.push(...batch.map((b) => b.session_id))
      await new Promise((resolve) => setTimeout(resolve, 2)) // the next batch starts later than this one
    }
    const batchOf = (id: string) => Math.floor(created.indexOf(id) / 10)
    const page = await browser.page()
    await page.goto(server.url)
    const list = page.getByRole('navigation', { name: 'Sessions' })
    const shown = () => list.locator('.sid').allTextContents()
    await page.waitForFunction(() => document.querySelectorAll('nav .sid').length > 0, undefined, { timeout: TIMEOUT })
    assert.equal([...await shown()].sort(), created.slice(130).sort(), 'the first page holds the 100 newest')
    const more = list.getByRole('button', { name: 'More sessions' })
    await more.click()
    await page.waitForFunction(() => document.querySelectorAll('nav .sid').length === 200, undefined, { timeout: TIMEOUT })
    await more.click()
    await page.waitForFunction(() => document.querySelectorAll('nav .sid').length === 230, undefined, { timeout: TIMEOUT })
    assert.is(await more.count(), 0)
    const ids = await shown()
    assert.equal([...ids].sort(), [...created].sort())
    assert.ok(ids.every((id, i) => i === 0 || batchOf(ids[i - 1]) >= batchOf(id)), 'newest first across the pages')
    // a refresh (after a change of status: opening one, here) lists them all again, not only the first page
    await list.getByRole('button', { name: new RegExp(`^${ids[229]}`) }).click()
    await page.getByLabel('Message').waitFor()
    await page.waitForTimeout(3500)
    assert.is((await shown()).length, 230)
    assert.equal(browser.errors, [])
  } finally {
    await browser.close()
    await server.close()
  }
})

if (chromiumAvailable('web/sessions')) test.run()
