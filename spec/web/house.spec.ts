// The page's first day (issue 33 items 8-10, 12), in Chromium against the real server: the
// conversation keeps following after an image loads or any block grows; Esc never interrupts a
// paused reply while an edit form is open, and a call that never ran never says it was stopped
// while running; sub-agent sessions are nested under their root in the session list; the external
// result form refuses an empty submit; a sub-agent's texts are separated by a blank line.
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { TIMEOUT, askingCard, newSession, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/house')

/** How far the conversation is from its end, in pixels (0: it shows the last line). */
const fromEnd = (page: Page) => page.locator('.conversation').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
/** Three animation frames: time for layout, observers and scroll events to settle. */
const frames = (page: Page) => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))')

test('the conversation keeps following after an image loads, and after any block grows, until the person scrolls up', async () => {
  const page = await env.browser.page()
  await page.setViewportSize({ width: 1100, height: 520 })
  await newSession(page, env.server.url)
  await send(page, 'image')
  await waitReady(page)
  await page.locator('.conversation img').last().waitFor({ timeout: TIMEOUT })
  await send(page, 'hello')
  await waitReady(page)
  await frames(page)
  assert.ok(await fromEnd(page) <= 40, `the end is in view after the image and the next reply: ${await fromEnd(page)} px away`)
  // A block that grows without a new event (an image decoded late, a card that loads its content).
  await page.locator('.conversation img').last().evaluate((img) => void ((img as HTMLElement).style.height = '900px'))
  await frames(page)
  assert.ok(await fromEnd(page) <= 40, `the end stays in view when a block grows: ${await fromEnd(page)} px away`)
  // The person scrolls up to read: the page leaves the view where it is.
  await page.locator('.conversation').evaluate((el) => void (el.scrollTop = 0))
  await frames(page)
  await send(page, 'hello')
  await waitReady(page)
  await frames(page)
  assert.is(await page.locator('.conversation').evaluate((el) => el.scrollTop), 0)
  await page.close()
})

test('Esc while an argument editor is open never interrupts the paused reply, wherever the focus is', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await askingCard(page)
  await card.getByRole('button', { name: 'Edit' }).click()
  await card.getByLabel('Arguments (JSON)').waitFor({ timeout: TIMEOUT })
  await page.locator('article.msg-user').last().click() // the focus leaves the editor
  await page.keyboard.press('Escape')
  await card.getByRole('button', { name: 'Cancel' }).click()
  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  await waitReady(page)
  const events = await env.server.store.read(id)
  assert.equal(events.filter((e) => e.type === 'USER_INTERRUPT' || e.type === 'INTERRUPT_REQUESTED').map((e) => e.type), [])
  const result = events.find((e) => e.type === 'TOOL_RESULT_END')
  assert.is(result?.type === 'TOOL_RESULT_END' && result.state, 'success')
  await page.close()
})

test('a call the reply never ran does not say it was stopped while running', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await askingCard(page)
  await page.getByRole('button', { name: 'Stop' }).click()
  await card.locator('.result').waitFor({ timeout: TIMEOUT })
  assert.is((await serverState(env.server.url, id)).status, 'idle')
  const said = await card.locator('.result').textContent() ?? ''
  assert.match(said, 'The reply was stopped before this tool ran.')
  assert.not.match(said, 'stopped before it finished')
  await page.close()
})

test('the external result form refuses an empty submit: the box gets the focus and says what it needs', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'external')
  const form = page.getByRole('form', { name: 'Result of pick_color' })
  await form.waitFor({ timeout: TIMEOUT })
  await form.getByRole('button', { name: 'Submit result' }).click()
  await form.getByRole('alert').waitFor({ timeout: TIMEOUT })
  assert.is((await form.getByRole('alert').textContent())?.trim(), 'Write the result of pick_color first.')
  assert.ok(await form.getByLabel('Result of pick_color').evaluate((el) => el === document.activeElement), 'the box has the focus')
  await form.getByLabel('Result of pick_color').fill('crimson')
  assert.is(await form.getByRole('alert').count(), 0, 'typing clears the message')
  await form.getByRole('button', { name: 'Submit result' }).click()
  await waitReady(page)
  const events = await env.server.store.read(id)
  assert.is(events.filter((e) => e.type === 'EXTERNAL_EXECUTION_RESULT').length, 1, 'one result, the one written')
  await page.close()
})

test('on a phone the timeline opens above the composer, and a click on a row keeps the "Viewing the past" banner in view', async () => {
  const page = await env.browser.page()
  await page.setViewportSize({ width: 390, height: 844 })
  await newSession(page, env.server.url)
  await send(page, 'long')
  await waitReady(page)
  await page.getByRole('button', { name: 'Timeline' }).click()
  const timeline = page.locator('#timeline')
  await timeline.waitFor({ timeout: TIMEOUT })
  const top = (selector: string) => page.locator(selector).evaluate((el) => el.getBoundingClientRect().top + window.scrollY)
  assert.ok(await top('#timeline') < await top('.composer'), 'the timeline is above the composer')
  assert.ok(await top('#timeline') < await top('.conversation'), 'and above the conversation, under the buttons that open it')
  await timeline.locator('.row').nth(3).click()
  const banner = page.locator('.chat > .banner.past')
  await banner.waitFor({ timeout: TIMEOUT })
  await frames(page)
  const box = await banner.evaluate((el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: window.innerHeight } })
  assert.ok(box.top >= 0 && box.bottom <= box.height, `the banner is in view: ${JSON.stringify(box)}`)
  await page.close()
})

test('a sub-agent\'s session is listed under its root, and its approval card says which sub-agent asks', async () => {
  const page = await env.browser.page()
  const root = await newSession(page, env.server.url)
  await send(page, 'delegate')
  const card = page.getByRole('region', { name: 'Sub-agent call research' })
  await card.getByRole('group', { name: 'Approve send_email?' }).waitFor({ timeout: TIMEOUT })
  const child = (await card.getAttribute('data-child-session'))!
  const asks = card.getByRole('group', { name: `send_email, asked by the sub-agent research (session ${child})` })
  assert.match(await asks.textContent() ?? '', `The sub-agent research (session ${child}) asks to run send_email`)
  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  await waitReady(page)
  const list = page.getByRole('navigation', { name: 'Sessions' })
  const item = (id: string) => list.locator('li').filter({ has: page.locator('.sid', { hasText: id }) })
  await item(child).waitFor({ timeout: TIMEOUT })
  const order = await list.locator('li').evaluateAll((lis) => lis.map((li) => [li.querySelector('.sid')?.textContent, li.getAttribute('data-depth')]))
  const at = order.findIndex(([id]) => id === root)
  assert.equal(order[at + 1], [child, '1'], `the sub-agent comes right after its root, one level in: ${JSON.stringify(order)}`)
  assert.match(await item(child).textContent() ?? '', `sub-agent of ${root}`)
  const indent = await item(child).evaluate((li) => li.getBoundingClientRect().left) - await item(root).evaluate((li) => li.getBoundingClientRect().left)
  assert.ok(indent > 0, `indented: ${indent}px`)
  await page.close()
})

run()
