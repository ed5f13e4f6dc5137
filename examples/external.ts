// Tools that run outside the agent (in a browser, another service): `external: true` parks the
// reply with REQUIRE_EXTERNAL_EXECUTION until the result comes back. Also the input events by hand,
// for full control: a confirmation that adds a rule ("always allow this tool"), and an interrupt.
// Run: npx tsx examples/external.ts
// expect: waiting for open_page (submitted)
// expect: answer: The page title is "Example Domain".
// expect: the rule allows later calls: Both tabs are closed. (status idle)
// expect: interrupted: idle
import { createAgent, defineTool, scriptedModel, say, callTool, UserConfirmResultEvent, UserInterruptEvent } from 'agentlog'
import { z } from 'zod'

const openPage = defineTool({ name: 'open_page', description: 'Opens a page in the user\'s browser', input: z.object({ url: z.string() }), external: true })
const closeTab = defineTool({ name: 'close_tab', description: 'Closes a tab', input: z.object({ tab: z.number() }), permission: 'ask', execute: ({ tab }) => `closed tab ${tab}` })

const model = scriptedModel([
  [...callTool('call-1', 'open_page', { url: 'https://example.com' })],
  [...say('The page title is "Example Domain".')],
  [...callTool('call-2', 'close_tab', { tab: 1 })],
  [...say('Closed.')],
  [...callTool('call-3', 'close_tab', { tab: 2 }), ...callTool('call-4', 'close_tab', { tab: 3 })],
  [...say('Both tabs are closed.')],
  [...callTool('call-5', 'open_page', { url: 'https://example.org' })],
])
const agent = createAgent({ name: 'Friday', model, tools: [openPage, closeTab] })

// An external call: the reply waits for its result.
const paused = await agent.reply('What is the title of example.com?')
console.log(`waiting for ${paused.waiting_for.map((c) => `${c.name} (${c.state})`).join(', ')}`)
const answer = await agent.submitResult('call-1', '<title>Example Domain</title>')   // or { output, state: 'error' }
console.log(`answer: ${answer.text}`)

// A confirmation by hand, with a rule that allows close_tab from now on (no more asking).
await agent.reply('Close tab 1.')
const reply_id = agent.state.reply_id!
await agent.reply(UserConfirmResultEvent({ reply_id, confirm_results: [
  { confirmed: true, tool_call: agent.state.waiting_for[0], rules: [{ tool_name: 'close_tab', rule_content: null, behavior: 'allow', source: 'user' }] },
] }))
const later = await agent.reply('Close tabs 2 and 3.')
console.log(`the rule allows later calls: ${later.text} (status ${agent.state.status})`)

// Discard pending work: USER_INTERRUPT closes every waiting call as interrupted.
await agent.reply('Open example.org.')
await agent.reply(UserInterruptEvent({ reply_id: agent.state.reply_id! }))   // the same as: await agent.interrupt()
console.log(`interrupted: ${agent.state.status}`)
