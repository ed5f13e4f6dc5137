// examples/redux-react in Chromium against the real server: a reply streams into the page through
// the Redux store (useSelector), a call waits with Approve / Deny, Stop cuts a reply mid-stream,
// and after a reload the page follows the session again and shows the same state as the server.
// With UPDATE_DOCS=1 it also writes docs/redux-devtools.png (the page's DevTools-like log).
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import type { AgentState } from '../../lib/index.js'
import { chromiumAvailable, launchBrowser, type Browser } from '../web/helpers/browser.js'
import { startExample } from '../../examples/redux-react/server.js'

const test = suite('redux/reactPage')
const TIMEOUT = 10_000
let browser: Browser
let example: Awaited<ReturnType<typeof startExample>>
const available = chromiumAvailable('redux/reactPage')

test.before(async () => {
  if (!available) return
  example = await startExample()
  browser = await launchBrowser()
})

test.after(async () => {
  if (!available) return
  await browser.close()
  await example.close()
})

const status = (page: Page) => page.locator('header .status')
const waitStatus = (page: Page, value: string) => page.locator('header .status', { hasText: new RegExp(`^${value}$`) }).waitFor({ timeout: TIMEOUT })
const sendText = async (page: Page, text: string) => {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}
const sliceState = (page: Page, id: string) => page.evaluate((session) => (globalThis as unknown as { agentlogStore: { getState(): { agents: { sessions: Record<string, unknown> } } } }).agentlogStore.getState().agents.sessions[session], id) as Promise<AgentState>
const serverState = async (id: string) => (await (await fetch(`${example.url}/sessions/${id}`)).json()) as AgentState

if (available) test('stream, approve, Stop mid-stream, reload and follow again: the page\'s slice is the server\'s state', async () => {
  const page = await browser.page()
  await page.goto(example.url)
  await page.getByRole('button', { name: 'New session' }).click()
  await page.waitForURL(/#s=/, { timeout: TIMEOUT })
  const id = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('s')!
  await waitStatus(page, 'idle')

  // 1. A reply streams: the assistant's text grows, then the reply ends.
  await sendText(page, 'one two three four')
  await page.locator('article.msg-assistant p', { hasText: 'one two three four' }).waitFor({ timeout: TIMEOUT })
  await waitStatus(page, 'idle')
  await page.locator('.devlog li', { hasText: 'agentlog/event/REPLY_END' }).first().waitFor({ timeout: TIMEOUT })

  // 2. A call asks for approval: Approve runs it and the reply goes on.
  await sendText(page, 'please ask')
  await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: TIMEOUT })
  assert.is(await status(page).textContent(), 'paused')
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.locator('article.msg-assistant p', { hasText: 'Done.' }).waitFor({ timeout: TIMEOUT })
  await waitStatus(page, 'idle')
  assert.is(await page.getByRole('button', { name: 'Approve' }).count(), 0)

  // 3. Stop while the reply streams: it ends interrupted, with the words received so far.
  await sendText(page, `slow ${'word '.repeat(60)}`)
  await page.locator('article.msg-assistant p', { hasText: 'slow word' }).waitFor({ timeout: TIMEOUT })
  await page.getByRole('button', { name: 'Stop' }).click()
  await waitStatus(page, 'idle')
  await page.locator('article.msg-assistant em', { hasText: 'stopped' }).waitFor({ timeout: TIMEOUT })
  const stopped = await sliceState(page, id)
  const last = stopped.context.at(-1)!
  assert.is(last.finished_reason, 'interrupted')
  assert.equal(stopped, await serverState(id))

  if (process.env.UPDATE_DOCS === '1') {
    await page.locator('.devlog li', { hasText: 'agentlog/event/TEXT_BLOCK_DELTA' }).last().click()
    await page.screenshot({ path: fileURLToPath(new URL('../../docs/redux-devtools.png', import.meta.url)) })
  }

  // 4. Reload: the page follows the session again, from one snapshot, and shows the same conversation.
  const before = await page.locator('article.msg').count()
  await page.reload()
  await waitStatus(page, 'idle')
  await page.waitForFunction((n) => document.querySelectorAll('article.msg').length === n, before, { timeout: TIMEOUT })
  assert.equal(await sliceState(page, id), await serverState(id))
  const followedActions = await page.locator('.devlog li', { hasText: 'agentlog/followed' }).count()
  assert.ok(followedActions >= 1)
  assert.is(await page.locator('.devlog li', { hasText: 'agentlog/event/' }).count(), 0, 'a late follow starts from the snapshot, not the log replayed event by event')
  assert.equal(browser.errors, [])
})

test.run()
