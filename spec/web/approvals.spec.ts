// Approvals and external results in a real browser against the real server: Approve, Deny, Edit
// (JSON checked against the tool's input schema before anything is sent), "always allow", a result
// typed for an external tool, an image a tool returned, and Stop while the reply waits.
import * as assert from 'uvu/assert'
import { screenshot } from './helpers/browser.js'
import { CONTRAST_CHECK, TIMEOUT, askingCard, lastReply, newSession, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'
import type { Page } from 'playwright-core'
import { PNG_SIZE } from './helpers/playbook.js'

const { test, env, run } = browserSuite('web/approvals')

const asking = askingCard

test('Approve runs the asking call and the reply goes on to its answer', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await asking(page)
  assert.ok(await page.getByRole('status').filter({ hasText: 'waits for you' }).isVisible())
  assert.equal(await page.evaluate(CONTRAST_CHECK), [], 'text contrast is at least 4.5:1 on the approval card')
  await screenshot(page, 'approval')
  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  await waitReady(page)
  assert.ok(await card.getByText('sent "Hi" to ann@example.com').isVisible())
  await lastReply(page).getByText('Done: sent "Hi" to ann@example.com').waitFor({ timeout: TIMEOUT })
  const state = await serverState(env.server.url, id)
  assert.is(state.context[state.context.length - 1].finished_reason, 'completed')
  assert.equal(state.permission_rules, [])
  await page.close()
})

test('Deny is said plainly on the card; the model hears of the denial', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await asking(page)
  await card.getByRole('button', { name: 'Deny' }).click()
  await card.getByText('Denied by you').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  assert.ok(await card.getByText('You denied this call; the model was told.').isVisible())
  assert.not.match(await card.textContent() ?? '', /system-reminder/)
  const state = await serverState(env.server.url, id)
  const result = state.context[state.context.length - 1].content.find((b) => b.type === 'tool_result')
  assert.is(result?.type === 'tool_result' && result.state, 'denied')
  await page.close()
})

test('Edit: arguments that break the input schema are refused in the page; fixed ones are sent, with "always allow"', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  const card = await asking(page)
  await card.getByRole('button', { name: 'Edit' }).click()
  const editor = card.getByLabel('Arguments (JSON)')
  await editor.fill('{"to": "not an email", "subject": "Hi"}')
  await card.getByRole('button', { name: 'Approve edited' }).click()
  await card.getByRole('alert').waitFor({ timeout: TIMEOUT })
  assert.is((await card.getByRole('alert').textContent())?.trim(), 'to must be an email address', 'in words, once (issue 33 item 12)')
  assert.is(await editor.getAttribute('aria-invalid'), 'true')
  assert.is((await serverState(env.server.url, id)).status, 'paused')
  await editor.fill('{"to": "bob@example.com", "subject": "Lunch"}')
  await card.getByLabel(/Always allow/).check()
  await card.getByRole('button', { name: 'Approve edited' }).click()
  await waitReady(page)
  assert.ok(await card.getByText('sent "Lunch" to bob@example.com').isVisible())
  const state = await serverState(env.server.url, id)
  const call = state.context[state.context.length - 1].content.find((b) => b.type === 'tool_call')
  assert.equal(call?.type === 'tool_call' && JSON.parse(call.input), { to: 'bob@example.com', subject: 'Lunch' })
  assert.equal(state.permission_rules.map((r) => [r.tool_name, r.rule_content, r.behavior]), [['send_email', null, 'allow']])
  await send(page, 'approve')
  await waitReady(page)
  await lastReply(page).getByText('Done: sent "Hi" to ann@example.com').waitFor({ timeout: TIMEOUT })
  await page.close()
})

test('an external tool shows a result form; the submitted result reaches the model', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'external')
  const form = page.getByRole('form', { name: 'Result of pick_color' })
  await form.waitFor({ timeout: TIMEOUT })
  await form.getByLabel('Result of pick_color').fill('amber')
  await form.getByRole('button', { name: 'Submit result' }).click()
  await waitReady(page)
  await lastReply(page).getByText('Done: amber').waitFor({ timeout: TIMEOUT })
  const state = await serverState(env.server.url, id)
  const result = state.context[state.context.length - 1].content.find((b) => b.type === 'tool_result')
  assert.is(result?.type === 'tool_result' && result.output, 'amber')
  await page.close()
})

test('an image a tool returns is shown; Stop while a reply waits for approval closes it', async () => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, 'image')
  await waitReady(page)
  const image = page.getByRole('region', { name: 'Tool call draw' }).getByRole('img')
  assert.is(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), PNG_SIZE)
  await asking(page)
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await page.getByRole('region', { name: 'Tool call send_email' }).getByText('Stopped by you').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  assert.is(await page.getByRole('group', { name: 'Approve send_email?' }).count(), 0)
  const state = await serverState(env.server.url, id)
  assert.is(state.context[state.context.length - 1].finished_reason, 'interrupted')
  await page.close()
})

test('no page threw an uncaught error during the tests above', () => {
  assert.equal(env.browser.errors, [])
})

run()
