// Time travel in a real browser: the timeline (deltas coalesced, seq and time), a row shows the fold
// up to it under a "viewing the past" banner, back to live, fork from there; Redux DevTools gets
// every event with its state and a jump there shows that state read-only; keyboard and phone width.
import * as assert from 'uvu/assert'
import { screenshot } from './helpers/browser.js'
import { CONTRAST_CHECK, TIMEOUT, newSession, replyText, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/travel')

test('a timeline row shows the conversation after it; back to live; fork from here opens the fork', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'hello')
  await waitReady(page)
  await send(page, 'external')
  await page.getByRole('form', { name: 'Result of pick_color' }).waitFor({ timeout: TIMEOUT })
  await page.getByRole('button', { name: 'Timeline' }).click()
  const timeline = page.getByRole('complementary', { name: 'Timeline' })
  const textRow = timeline.getByRole('button').filter({ hasText: 'TEXT_BLOCK_DELTA ×6' })
  await textRow.waitFor({ timeout: TIMEOUT })
  const log = (await (await fetch(`${env.server.url}/sessions/${id}`)).json()) as { seq: number }
  assert.is(await timeline.getByRole('button').filter({ hasText: /^#\d/ }).count() < log.seq, true, 'deltas are coalesced')
  const seq = Number(await textRow.getAttribute('data-seq'))
  await textRow.click()
  const banner = page.getByRole('status').filter({ hasText: 'Viewing the past' })
  await banner.waitFor({ timeout: TIMEOUT })
  assert.match(await banner.textContent() ?? '', new RegExp(`event #${seq} \\(TEXT_BLOCK_DELTA\\)`))
  assert.is(await replyText(page), 'Hello! I am a scripted agent.')
  assert.is(await page.getByLabel('Message').count(), 0, 'the past is read-only')
  assert.is(await page.getByRole('form', { name: 'Result of pick_color' }).count(), 0)
  await screenshot(page, 'viewing-the-past')
  await page.getByRole('button', { name: 'Back to live' }).click()
  await page.getByRole('form', { name: 'Result of pick_color' }).waitFor({ timeout: TIMEOUT })

  await timeline.getByRole('button').filter({ hasText: 'REPLY_END' }).first().click()
  await page.getByRole('button', { name: 'Fork from here' }).click()
  await page.waitForURL((u) => u.hash.startsWith('#/sessions/') && !u.hash.endsWith(encodeURIComponent(id)), { timeout: TIMEOUT })
  const fork = decodeURIComponent(new URL(page.url()).hash.replace('#/sessions/', ''))
  await waitReady(page)
  const forked = await serverState(env.server.url, fork)
  const original = await serverState(env.server.url, id)
  assert.is(forked.status, 'idle')
  assert.equal(forked.context, original.context.slice(0, 2))
  assert.is(original.status, 'paused', 'the forked session is untouched')
  await send(page, 'hello')
  await waitReady(page)
  const after = await serverState(env.server.url, fork)
  assert.is(after.context.length, 4)
  assert.is(after.session_id, fork, 'new replies in the fork carry its id')
  await page.close()
})

test('Redux DevTools receives each event with its state; jumping there shows that state read-only', async () => {
  const page = await env.browser.page()
  // A stand-in for the extension with its documented surface (connect, init, send, subscribe); a
  // string, because tsx's transform would name inner functions with a helper the page lacks.
  await page.addInitScript({ content: `
    const sent = []
    let listener = null
    window.__devtoolsSent = sent
    window.__devtoolsJump = (state) => listener({ type: 'DISPATCH', payload: { type: 'JUMP_TO_STATE' }, state: JSON.stringify(state) })
    window.__REDUX_DEVTOOLS_EXTENSION__ = {
      connect: () => ({ init() {}, send(action, state) { sent.push({ action, state }) }, subscribe(l) { listener = l } }),
    }` })
  const id = await newSession(page, env.server.url)
  await send(page, 'hello')
  await waitReady(page)
  const sent = await page.evaluate(() => (window as unknown as { __devtoolsSent: { action: { type: string }; state: { seq: number } }[] }).__devtoolsSent)
  const state = await serverState(env.server.url, id)
  assert.is(sent.length, state.seq)
  sent.forEach((s, i) => assert.is(s.state.seq, i + 1))
  assert.is(sent[sent.length - 1].action.type, 'REPLY_END')
  const early = sent.find((s) => s.action.type === 'TEXT_BLOCK_START')!.state
  await page.evaluate((s) => (window as unknown as { __devtoolsJump: (s: unknown) => void }).__devtoolsJump(s), early)
  await page.getByRole('status').filter({ hasText: 'a state picked in Redux DevTools' }).waitFor({ timeout: TIMEOUT })
  assert.is(await replyText(page), '')
  assert.is(await page.getByLabel('Message').count(), 0)
  await page.close()
})

test('the sessions list opens a session by its button and deletes one after a confirmation', async () => {
  const page = await env.browser.page()
  const first = await newSession(page, env.server.url)
  await send(page, 'hello')
  await waitReady(page)
  const second = await newSession(page, env.server.url)
  const list = page.getByRole('navigation', { name: 'Sessions' })
  await list.getByRole('button', { name: new RegExp(`^${first}`) }).click()
  await page.waitForURL((u) => u.hash.endsWith(encodeURIComponent(first)), { timeout: TIMEOUT })
  await page.getByText('Hello! I am a scripted agent.').waitFor({ timeout: TIMEOUT })
  assert.match(await list.getByRole('button', { name: new RegExp(`^${first}`) }).textContent() ?? '', /idle/)
  const dialogs: string[] = []
  page.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.accept() })
  await list.getByRole('button', { name: `Delete session ${first}` }).click()
  await page.getByText('Open a session or start a new one.').waitFor({ timeout: TIMEOUT })
  await list.getByRole('button', { name: `Delete session ${first}` }).waitFor({ state: 'detached', timeout: TIMEOUT })
  assert.match(dialogs[0], first)
  assert.is((await fetch(`${env.server.url}/sessions/${first}`)).status, 404)
  assert.is((await fetch(`${env.server.url}/sessions/${second}`)).status, 200)
  await page.close()
})

test('keyboard only: Tab reaches the controls in order, focus is visible, Enter sends; phone width stacks', async () => {
  const page = await env.browser.page()
  await newSession(page, env.server.url)
  await page.getByLabel('Message').focus()
  await page.keyboard.type('hello')
  await page.keyboard.press('Enter')
  await waitReady(page)
  const focusOrder: string[] = []
  await page.getByRole('button', { name: 'New session' }).focus()
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab')
    focusOrder.push(await page.evaluate(() => {
      const el = document.activeElement as HTMLElement
      const ring = getComputedStyle(el).outlineStyle
      return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 12)}:${ring}`
    }))
  }
  assert.ok(focusOrder.every((f) => f.endsWith(':solid')), `focus ring on every stop: ${focusOrder.join(', ')}`)
  assert.match(focusOrder[1], /^button:Delete session/)
  const unnamed = await page.evaluate(() => [...document.querySelectorAll('button, textarea, input')]
    .filter((el) => !(el.getAttribute('aria-label') || el.textContent?.trim() || (el.id && document.querySelector(`label[for="${el.id}"]`)) || el.closest('label'))).length)
  assert.is(unnamed, 0, 'every control has a label')
  const lowContrast = await page.evaluate(CONTRAST_CHECK)
  assert.equal(lowContrast, [], 'text contrast is at least 4.5:1 (WCAG AA)')
  await page.setViewportSize({ width: 390, height: 844 })
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  assert.is(overflow, 0, 'nothing wider than a phone screen')
  await screenshot(page, 'phone')
  await page.close()
})

test('no page threw an uncaught error during the tests above', () => {
  assert.equal(env.browser.errors, [])
})

run()
