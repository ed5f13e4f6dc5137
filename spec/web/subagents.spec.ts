// Sub-agents in the page (issue 21 item 8), in a real browser against the real server: a sub-agent's
// call is a card with the agent tool's name, the sub-agent's report as it streams and its status;
// the sub-agent's approval is answered from the parent's view (the root's /input reaches it), and
// the reply goes on to its end; the card expands into the sub-agent's conversation (followed live
// when the server serves the sub-agent's session; otherwise it says the report is what there is);
// the timeline switches to the sub-agent's log; Stop while the sub-agent waits stops the tree.
import * as assert from 'uvu/assert'
import type { Agent } from '../../lib/index.js'
import { TIMEOUT, lastReply, newSession, send, serverState, waitReady } from './helpers/page.js'
import { browserSuite } from './helpers/suite.js'

const { test, env, run } = browserSuite('web/subagents')

/** A new session whose reply delegates to the research sub-agent, once the sub-agent's approval shows on its card. */
const delegated = async (message = 'delegate') => {
  const page = await env.browser.page()
  const id = await newSession(page, env.server.url)
  await send(page, message)
  const card = page.getByRole('region', { name: 'Sub-agent call research' })
  await card.getByRole('group', { name: 'Approve send_email?' }).waitFor({ timeout: TIMEOUT })
  return { page, id, card }
}

test("a sub-agent's call is a card with its streamed report; its approval is answered from the parent's view and the reply ends", async () => {
  const { page, id, card } = await delegated()
  assert.match(await card.getByLabel("Sub-agent's report").textContent() ?? '', 'Checking the calendar.')
  assert.ok(await card.getByText('Waits for you').isVisible())
  assert.match(await card.getByRole('group', { name: 'send_email, asked by the sub-agent' }).textContent() ?? '', 'ann@example.com')
  assert.is(await card.getByLabel(/Always allow/).count(), 0, "no rule is offered: the root's answer grants none in the sub-agent")
  const paused = await serverState(env.server.url, id)
  assert.equal(paused.waiting_for.map((c) => [c.name, c.state]), [['research', 'submitted']], "the root waits on the sub-agent's call")

  await card.getByText("The sub-agent's conversation").click()
  const child = await card.getAttribute('data-child-session')
  const served = (await fetch(`${env.server.url}/sessions/${child}`)).ok
  if (served) await card.locator('.child-conversation').getByText('Checking the calendar.').waitFor({ timeout: TIMEOUT })
  else await card.getByRole('note').filter({ hasText: 'not served here' }).waitFor({ timeout: TIMEOUT })

  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  await waitReady(page)
  await lastReply(page).getByText('Done: Checking the calendar. Done: sent "Found it" to ann@example.com').waitFor({ timeout: TIMEOUT })
  assert.ok(await card.getByText('Done', { exact: true }).isVisible(), "the card's status is the call's outcome")
  const state = await serverState(env.server.url, id)
  const reply = state.context[state.context.length - 1]
  assert.is(reply.finished_reason, 'completed')
  const result = reply.content.find((b) => b.type === 'tool_result')
  assert.is(result?.type === 'tool_result' && result.state, 'success')
  await page.close()
})

test("the timeline switches to the sub-agent's log and back; Stop while the sub-agent waits stops the whole tree", async () => {
  const { page, id, card } = await delegated()
  const child = await card.getAttribute('data-child-session')
  await card.getByText("The sub-agent's conversation").click()
  await card.getByRole('button', { name: 'Show its log in the timeline' }).click()
  const timeline = page.locator('#timeline')
  await timeline.getByRole('status').filter({ hasText: `The log of sub-agent session ${child}` }).waitFor({ timeout: TIMEOUT })
  if ((await fetch(`${env.server.url}/sessions/${child}`)).ok) await timeline.getByText('REQUIRE_USER_CONFIRM').waitFor({ timeout: TIMEOUT })
  else await timeline.getByText('It is not served here').waitFor({ timeout: TIMEOUT })
  await timeline.getByRole('button', { name: "Back to this session's log" }).click()
  await timeline.getByText('REQUIRE_EXTERNAL_EXECUTION').waitFor({ timeout: TIMEOUT })

  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await card.getByText('Stopped by you').waitFor({ timeout: TIMEOUT })
  await waitReady(page)
  assert.is(await page.getByRole('group', { name: 'Approve send_email?' }).count(), 0, 'no approval form is left')
  const state = await serverState(env.server.url, id)
  assert.is(state.context[state.context.length - 1].finished_reason, 'interrupted')
  const waiting = (await (await fetch(`${env.server.url}/sessions/${id}/waiting`)).json()) as { waiting_for: unknown[] }
  assert.equal(waiting.waiting_for, [], 'nothing in the tree waits any more')
  const roots: Agent[] = []
  env.server.hub.onAgent!((agent) => void (agent.session_id === id && roots.push(agent)))()
  const [researcher] = roots[0].children()
  assert.is(researcher.state.context.at(-1)!.finished_reason, 'interrupted', "the sub-agent's reply ended interrupted too")
  await page.close()
})

test("a sub-agent that asks again after an answer (nothing new in the parent's log) shows its next approval", async () => {
  const { page, id, card } = await delegated('delegate twice')
  assert.match(await card.getByRole('group', { name: 'send_email, asked by the sub-agent' }).textContent() ?? '', 'ann@example.com')
  await card.getByRole('button', { name: 'Approve', exact: true }).click()
  const second = card.getByRole('group', { name: 'send_email, asked by the sub-agent' }).filter({ hasText: 'bob@example.com' })
  await second.waitFor({ timeout: TIMEOUT })
  await second.getByRole('button', { name: 'Deny' }).click()
  await waitReady(page)
  const state = await serverState(env.server.url, id)
  const reply = state.context[state.context.length - 1]
  assert.is(reply.finished_reason, 'completed')
  const result = reply.content.find((b) => b.type === 'tool_result')
  const report = JSON.stringify(result?.type === 'tool_result' && result.output)
  assert.match(report, /Checking the calendar\. Ann is told\. Done: .*denied/i, report)
  await page.close()
})

test('no page threw an uncaught error during the tests above', () => {
  assert.equal(env.browser.errors, [])
})

run()
