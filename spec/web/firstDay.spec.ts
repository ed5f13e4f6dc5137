// The page as a newcomer meets it (issue 22 items 10-13), in Chromium against the real server: Esc
// in "Edit arguments" leaves the editor (the reply stays paused), as Cancel does; an external call
// says it waits for you; Deny takes an optional reason the log keeps; the sessions list is newest
// first with times, and a fork says what it came from; at 390 px the conversation comes first and
// the sessions and the timeline open from buttons; the loading text goes; a dark theme follows
// prefers-color-scheme; and a load logs no console error (no CSP refusal of zod's eval check).
import * as assert from 'uvu/assert'
import type { ConsoleMessage, Page } from 'playwright-core'
import { CONTRAST_CHECK, TIMEOUT, askingCard, newSession, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/firstDay')

const asking = askingCard

const consoleErrors = (page: Page): string[] => {
  const errors: string[] = []
  page.on('console', (m: ConsoleMessage) => m.type() === 'error' && errors.push(m.text()))
  return errors
}

test('Esc in the argument editor cancels the edit, not the reply; Cancel does the same; the arguments are as before', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await asking(page)
  await card.getByRole('button', { name: 'Edit' }).click()
  const editor = card.getByLabel('Arguments (JSON)')
  await editor.fill('{"to": "changed@example.com", "subject": "Hi"}')
  await editor.press('Escape')
  await editor.waitFor({ state: 'detached', timeout: TIMEOUT })
  assert.is((await serverState(env.server.url, id)).status, 'paused')
  assert.ok(await card.getByRole('group', { name: 'Approve send_email?' }).isVisible())
  await card.getByRole('button', { name: 'Edit' }).click()
  assert.not.match(await editor.inputValue(), 'changed@example.com', 'the editor starts again from the call\'s arguments')
  await card.getByRole('button', { name: 'Cancel' }).click()
  await editor.waitFor({ state: 'detached', timeout: TIMEOUT })
  assert.is((await serverState(env.server.url, id)).status, 'paused')
  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  await waitReady(page)
  await page.close()
})

test('Deny with a reason: the denial and its reason are in the log', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await asking(page)
  await card.getByLabel(/Reason if you deny/).fill('not to Ann, please')
  await card.getByRole('button', { name: 'Deny' }).click()
  await card.getByText('Denied by you').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  const events = await env.server.store.read(id)
  const confirm = events.find((e) => e.type === 'USER_CONFIRM_RESULT')
  assert.is(confirm?.metadata.reason, 'not to Ann, please')
  await page.close()
})

test('an external call waiting for its result is labelled "Waiting for you"', async () => {
  const page = await env.browser.page()
  await newSession(page, env.server.url)
  await send(page, 'external')
  const card = page.getByRole('region', { name: 'Tool call pick_color' })
  await card.getByRole('form', { name: 'Result of pick_color' }).waitFor({ timeout: TIMEOUT })
  assert.is((await card.locator('.badge').textContent())?.trim(), 'Waiting for you')
  assert.not.match(await card.textContent() ?? '', 'Running')
  await page.close()
})

test('sessions newest first, with their title (the first message, shortened) and start time; a fork says what it was forked from', async () => {
  const post = (path: string, body: unknown) => fetch(`${env.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const ids: string[] = []
  for (const name of ['zz-oldest', 'aa-middle', 'mm-newest']) {
    await post('/sessions', { session_id: name })
    ids.push(name)
    await new Promise((r) => setTimeout(r, 15)) // distinct start times
  }
  await env.server.hub.session('aa-middle').reply(`hello\n${'and a long first message that goes on '.repeat(3)}`)
  const forked = (await (await post('/sessions/aa-middle/fork', { seq: 2 })).json()) as { session_id: string }
  const page = await env.browser.page()
  await page.goto(env.server.url)
  const list = page.getByRole('navigation', { name: 'Sessions' })
  await list.getByText(`forked from aa-middle at event #2`).waitFor({ timeout: TIMEOUT })
  const shown = (await list.locator('.sid').allTextContents()).filter((s) => [...ids, forked.session_id].includes(s))
  assert.equal(shown, [forked.session_id, 'mm-newest', 'aa-middle', 'zz-oldest'])
  assert.match(await list.getByRole('button', { name: /^mm-newest/ }).textContent() ?? '', /started .*\d/)
  const title = 'hello and a long first message that goes on and a long firs…' // 60 characters, on one line
  assert.is(await list.getByRole('button', { name: /^aa-middle/ }).locator('.title').textContent(), title)
  const listed = (await (await fetch(`${env.server.url}/sessions`)).json()) as { items: { session_id: string; title?: string }[] }
  assert.is(listed.items.find((s) => s.session_id === 'aa-middle')?.title, title, 'GET /sessions gives the same title')
  assert.is(listed.items.find((s) => s.session_id === 'mm-newest')?.title, undefined, 'no title before a message')
  await page.close()
})

test('at 390 px the conversation and the composer come first; the sessions and the timeline open from buttons', async () => {
  const page = await env.browser.page()
  await page.setViewportSize({ width: 390, height: 844 })
  await newSession(page, env.server.url)
  await send(page, 'hello')
  await waitReady(page)
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  assert.not.ok(await nav.isVisible(), 'the sessions list is behind its button')
  const composer = await page.getByLabel('Message').boundingBox()
  assert.ok(composer && composer.y + composer.height <= 844, `the composer is on the first screen: ${JSON.stringify(composer)}`)
  const conversation = await page.getByRole('main', { name: 'Conversation' }).boundingBox()
  assert.ok(conversation && conversation.y < 120, `the conversation comes right after the header: ${JSON.stringify(conversation)}`)
  await page.getByRole('button', { name: 'Sessions' }).click()
  await nav.waitFor({ state: 'visible', timeout: TIMEOUT })
  await page.getByRole('button', { name: 'Hide sessions' }).click()
  await nav.waitFor({ state: 'hidden', timeout: TIMEOUT })
  await page.getByRole('button', { name: 'Timeline' }).click()
  await page.locator('#timeline').waitFor({ state: 'visible', timeout: TIMEOUT })
  await page.close()
})

test('a load: "Loading agentlog…" goes, no console error (zod never tries eval under the CSP); a dark theme follows prefers-color-scheme', async () => {
  const page = await env.browser.page()
  const errors = consoleErrors(page)
  await page.emulateMedia({ colorScheme: 'dark' })
  await newSession(page, env.server.url)
  await asking(page)
  assert.is(await page.getByText('Loading agentlog…').count(), 0)
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  const [r, g, b] = background.match(/\d+/g)!.map(Number)
  assert.ok(r + g + b < 120, `a dark background: ${background}`)
  assert.equal(await page.evaluate(CONTRAST_CHECK), [], 'text contrast is at least 4.5:1 in the dark theme')
  await page.reload()
  await page.getByRole('group', { name: 'Approve send_email?' }).waitFor({ timeout: TIMEOUT })
  assert.equal(errors, [])
  await page.close()
})

test('no page threw an uncaught error during the tests above', () => {
  assert.equal(env.browser.errors, [])
})

run()
