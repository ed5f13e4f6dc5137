// Issue 30 on the page, in a real browser against the real server: Enter while a reply runs queues
// (chips above the composer, removable, or taken back to edit), "Send now" steers the running reply,
// "Stop after this step" lets the model call finish, and a new message over a pending approval
// interrupts it and starts its own reply.
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { TIMEOUT, askingCard, msgText, newSession, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/talk')
const chips = (page: Page) => page.getByRole('list', { name: 'Up next' }).getByRole('listitem')
const running = (page: Page) => page.getByRole('button', { name: 'Send now' }).waitFor({ timeout: TIMEOUT })
const type = async (page: Page, text: string) => page.getByLabel('Message').fill(text)
const eventually = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.ok(await check())
}

test('Enter while a reply runs queues the message as a chip; × takes it back; the rest starts after the reply', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await running(page)
  await type(page, 'queued one')
  await page.getByLabel('Message').press('Enter')
  await type(page, 'queued two')
  await page.getByLabel('Message').press('Enter')
  await eventually(async () => (await chips(page).count()) === 2)
  assert.equal((await serverState(env.server.url, id)).queue.map((e) => msgText(e.msg)), ['queued one', 'queued two'])
  await page.getByRole('button', { name: 'Take back: queued two' }).click()
  await eventually(async () => (await chips(page).count()) === 1)
  await eventually(async () => {
    const state = await serverState(env.server.url, id)
    return state.status === 'idle' && state.queue.length === 0 && state.context.filter((m) => m.role === 'user').length === 2
  })
  const state = await serverState(env.server.url, id)
  assert.equal(state.context.filter((m) => m.role === 'user').map(msgText), ['long', 'queued one'])
  await eventually(async () => (await chips(page).count()) === 0)
  await page.close()
})

test('"Send now" steers the running reply: the message joins it and the model answers it in the same reply', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await running(page)
  await type(page, 'and greet me')
  await page.getByRole('button', { name: 'Send now' }).click()
  await waitReady(page)
  await eventually(async () => (await serverState(env.server.url, id)).status === 'idle')
  const state = await serverState(env.server.url, id)
  assert.equal(state.context.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'])
  assert.is(msgText(state.context[2]), 'and greet me')
  assert.is(state.context[3].metadata.reply_id, state.context[1].id, 'one reply, split by the steer')
  await page.close()
})

test('"Stop after this step" lets the streaming model call finish, then ends the reply', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'long')
  await running(page)
  await page.getByRole('button', { name: 'Stop after this step' }).click()
  await waitReady(page)
  await eventually(async () => (await serverState(env.server.url, id)).status === 'idle')
  const last = (await serverState(env.server.url, id)).context.at(-1)!
  assert.is(last.finished_reason, 'interrupted')
  assert.match(msgText(last), /word199$/, 'the whole model call was kept')
  await page.close()
})

test('a new message over a pending approval interrupts it (as the page says) and starts its own reply', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await askingCard(page)
  assert.ok(await page.getByRole('status').filter({ hasText: 'interrupts the waiting reply' }).isVisible())
  await send(page, 'hello there')
  await waitReady(page)
  await eventually(async () => (await serverState(env.server.url, id)).status === 'idle')
  const state = await serverState(env.server.url, id)
  const results = state.context[1].content.filter((b) => b.type === 'tool_result').map((b) => b.type === 'tool_result' && b.state)
  assert.equal(results, ['interrupted'])
  assert.equal(state.context.filter((m) => m.role === 'user').map(msgText), ['approve', 'hello there'])
  await page.close()
})

test("the model's question (askUser) shows its choices as buttons; a click answers it and the reply goes on", async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'ask me')
  const form = page.getByRole('form', { name: 'Question: Which colour?' })
  await form.waitFor({ timeout: TIMEOUT })
  await form.getByRole('button', { name: 'blue' }).click()
  await waitReady(page)
  await eventually(async () => (await serverState(env.server.url, id)).status === 'idle')
  const state = await serverState(env.server.url, id)
  const result = state.context[1].content.find((b) => b.type === 'tool_result')
  assert.is(result?.type === 'tool_result' && typeof result.output === 'string' && result.output, '{"choice":"blue"}')
  await page.close()
})

run()
