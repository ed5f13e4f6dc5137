// The page in a real browser against the real server: a streamed answer, Stop while text streams
// (button) and while a slow tool runs (Esc) with the page and GET /sessions/:id agreeing on the
// interrupted reply, a reload mid-reply that keeps streaming, two tabs in step.
import * as assert from 'uvu/assert'
import { outputText } from '../../lib/index.js'
import { LONG_TEXT } from './helpers/playbook.js'
import { screenshot } from './helpers/browser.js'
import { TIMEOUT, lastReply, msgText, newSession, replyText, send, serverState, waitReady, waitText } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/chat')

// Records each text the latest reply shows, and whether it was marked as replying at that moment.
const WATCH_REPLY = `
  window.__seen = []
  new MutationObserver(() => {
    const replies = document.querySelectorAll('article.msg-assistant')
    const last = replies[replies.length - 1]
    const text = last ? [...last.querySelectorAll(':scope > .text')].map((t) => t.textContent).join('') : ''
    const seen = window.__seen
    if (text && seen[seen.length - 1]?.text !== text) seen.push({ text, live: !!last.querySelector('.badge.live') })
  }).observe(document.querySelector('.conversation'), { subtree: true, childList: true, characterData: true })`

test('a message sent with Enter streams its answer; thinking is collapsed; usage shows', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await page.evaluate(WATCH_REPLY)
  await send(page, 'hello')
  await waitReady(page)
  const final = 'Hello! I am a scripted agent.'
  assert.is(await replyText(page), final)
  const seen = await page.evaluate(() => (window as unknown as { __seen: { text: string; live: boolean }[] }).__seen)
  const partial = seen.filter((s) => s.live && s.text.length < final.length)
  assert.ok(partial.length >= 2, `the answer was seen growing while the reply ran: ${JSON.stringify(seen)}`)
  assert.ok(partial.every((s) => final.startsWith(s.text)))
  const thinking = lastReply(page).locator('details.thinking')
  assert.is(await thinking.getAttribute('open'), null)
  assert.is(await thinking.locator('summary').textContent(), 'Thinking')
  assert.match(await lastReply(page).locator('.usage').textContent() ?? '', /12 in · 7 out tokens/)
  assert.is(await page.getByLabel('Message').inputValue(), '')
  const state = await serverState(env.server.url, id)
  assert.is(msgText(state.context[state.context.length - 1]), 'Hello! I am a scripted agent.')
  await screenshot(page, 'streamed-answer')
  await page.close()
})

test('Stop while text streams closes the reply at once; the page and GET /sessions/:id agree', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await waitText(page, 40)
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await lastReply(page).getByText('Stopped').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  const shown = await replyText(page)
  const state = await serverState(env.server.url, id)
  const reply = state.context[state.context.length - 1]
  assert.is(state.status, 'idle')
  assert.is(reply.finished_reason, 'interrupted')
  assert.is(shown, msgText(reply))
  assert.ok(shown.length >= 40 && shown.length < LONG_TEXT.length, `partial text, got ${shown.length} chars`)
  assert.ok(LONG_TEXT.startsWith(shown))
  await screenshot(page, 'stopped-text')
  await page.close()
})

test('Esc while a slow tool runs stops it; its card says so in plain words, without the reminder text', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'slow tool')
  const card = page.getByRole('region', { name: 'Tool call slow_search' })
  await card.getByText('finding 2 about agents').waitFor({ timeout: TIMEOUT })
  await page.keyboard.press('Escape')
  await card.getByText('Stopped by you').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  const output = await card.locator('.output').textContent()
  assert.match(output ?? '', /^finding 1 about agents/)
  assert.not.match(await card.textContent() ?? '', /system-reminder/)
  assert.ok(await card.getByText('The tool was stopped before it finished.').isVisible())
  const state = await serverState(env.server.url, id)
  const reply = state.context[state.context.length - 1]
  const result = reply.content.find((b) => b.type === 'tool_result')
  assert.is(reply.finished_reason, 'interrupted')
  assert.is(result?.type === 'tool_result' && result.state, 'interrupted')
  assert.is(result?.type === 'tool_result' && outputText(result.output).split('<system-reminder>')[0].trim(), output)
  await screenshot(page, 'stopped-tool')
  await page.close()
})

test('a reload mid-reply reconnects and keeps streaming to the end', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await waitText(page, 30)
  await page.reload()
  await waitText(page, 1)
  const during = (await replyText(page)).length
  await waitReady(page)
  assert.is(await replyText(page), LONG_TEXT)
  assert.ok(during < LONG_TEXT.length, 'the reloaded page joined a reply still streaming')
  const state = await serverState(env.server.url, id)
  assert.is(state.context[state.context.length - 1].finished_reason, 'completed')
  await page.close()
})

test('two tabs on one session stay in step: one sends, the other streams it and stops it', async () => {
  const first = await env.browser.page()
  const id = await newSession(first, env.server.url)
  const second = await env.browser.page()
  await second.goto(`${env.server.url}/#/sessions/${encodeURIComponent(id)}`)
  await second.getByLabel('Message').waitFor({ timeout: TIMEOUT })
  await send(first, 'long')
  await waitText(second, 20)
  await second.getByRole('button', { name: 'Stop', exact: true }).click()
  await lastReply(first).getByText('Stopped').waitFor({ timeout: TIMEOUT })
  await waitReady(first)
  await waitReady(second)
  assert.is(await replyText(first), await replyText(second))
  await send(second, 'hello')
  await waitReady(second)
  await lastReply(first).getByText('Hello! I am a scripted agent.').waitFor({ timeout: TIMEOUT })
  const state = await serverState(env.server.url, id)
  assert.is(state.context.length, 4)
  await first.close()
  await second.close()
})

test('a dropped connection shows a banner, then the page resumes from where it was', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await waitText(page, 20)
  const banner = page.getByRole('alert').filter({ hasText: 'Connection lost' })
  const dropped = env.server.drop(600)
  await banner.waitFor({ timeout: TIMEOUT })
  await screenshot(page, 'connection-lost')
  await dropped
  await banner.waitFor({ state: 'detached', timeout: TIMEOUT })
  await waitReady(page)
  assert.is(await page.getByRole('alert').count(), 0, 'no error is left on screen once the connection is back')
  const state = await serverState(env.server.url, id)
  assert.is(await replyText(page), msgText(state.context[state.context.length - 1]))
  await page.close()
})

test('no page threw an uncaught error during the tests above', () => {
  assert.equal(env.browser.errors, [])
})

run()
