// The terminal demo of the library (`npx tsx examples/demo.ts`): a scripted agent, no network and no key. Part 1: it streams text, calls
// a slow tool and is interrupted while the tool runs, as a user pressing Stop would; the next
// message simply continues. Part 2: a tool that asks for confirmation parks the reply; it is
// confirmed; a second paused call is interrupted with USER_INTERRUPT. Then replay(log) equals the state.
import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import {
  callTool, createAgent, defineTool, replay, say, scriptedModel, think, usage,
  UserConfirmResultEvent, UserInterruptEvent, UserMsg, withoutReminders, type Agent, type AgentInput,
} from 'agentlog'
import { sleep } from '../lib/core/abort.js'
import { bold, dim, green, printEvent, red, yellow } from './support/print.js'

const searchFlights = defineTool({
  name: 'search_flights', description: 'Searches flights (slow)', input: z.object({ from: z.string(), to: z.string() }),
  execute: async function* ({ from, to }, { signal }) {
    for (const airline of ['Air Demo', 'Scripted Airways', 'Mock Jet']) {
      await sleep(400, signal)
      yield `${airline}: ${from} -> ${to}, 09:40\n`
    }
  },
})

const bookFlight = defineTool({
  name: 'book_flight', description: 'Books a flight (asks first)', input: z.object({ flight: z.string() }),
  permission: 'ask',
  execute: async ({ flight }) => `Booked ${flight}. Confirmation code DEMO42.`,
})

const model = scriptedModel([
  [...think('The user wants flights; search first.', 3), ...say('Let me search flights from Paris to Rome for you.', 8), ...callTool('call-search', 'search_flights', { from: 'Paris', to: 'Rome' }, 4), usage(120, 40)],
  [...say('Sorry, I stopped the search as you asked. Shall I just book the 09:40 Air Demo flight?', 10), usage(180, 22)],
  [...say('Booking it now.', 3), ...callTool('call-book', 'book_flight', { flight: 'AD 940' }, 2), usage(220, 18)],
  [...say('Done: you are booked on AD 940, code DEMO42.', 6), usage(260, 15)],
  [...callTool('call-book-2', 'book_flight', { flight: 'AD 941' }, 2), usage(300, 10)],
], { chunkDelayMs: 25 })

const agent = createAgent({ name: 'Friday', sysPrompt: 'You are a travel assistant.', model, tools: [searchFlights, bookFlight], maxIters: 10 })

const run = async (title: string, input: AgentInput, options: { stopAfterMs?: number } = {}) => {
  console.log(`\n${bold(title)}`)
  const controller = new AbortController()
  const timer = options.stopAfterMs ? setTimeout(() => {
    console.log(`\n  ${red('■ Stop pressed')}`)
    controller.abort()
  }, options.stopAfterMs) : undefined
  for await (const event of agent.replyStream(input, { signal: controller.signal })) printEvent(event)
  clearTimeout(timer)
  showState(agent)
}

const showState = ({ state }: Agent) =>
  console.log(dim(`  state: ${state.status}, ${state.context.length} messages, cur_iter ${state.cur_iter}, usage in=${state.usage.input_tokens} out=${state.usage.output_tokens}`) +
    (state.status === 'paused' ? `\n  ${yellow(`waiting for: ${state.waiting_for.map((c) => `${c.name} ${c.input} (${c.state})`).join(', ')}`)}` : ''))

console.log(bold('agentlog demo') + dim(' — a scripted model, no network, no key'))
await run('1. "Find me a flight to Rome" (Stop is pressed about a second in, while the tool runs)', UserMsg({ content: 'Find me a flight from Paris to Rome.' }), { stopAfterMs: 1200 })
const interrupted = agent.state.context.at(-1)!
const result = interrupted.content.find((b) => b.type === 'tool_result')
const output = result?.type === 'tool_result' && typeof result.output === 'string' ? result.output : ''
console.log(dim(`  the interrupted tool result kept its partial output: ${JSON.stringify(withoutReminders(output))} (the model also reads a note that the call was interrupted)`))
await run('2. "What happened?" (the conversation simply continues)', UserMsg({ content: 'What happened?' }))
await run('3. "Yes, book it" (book_flight asks for confirmation: the reply parks)', UserMsg({ content: 'Yes, book it.' }))
await run('4. The user confirms', UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results: [{ confirmed: true, tool_call: agent.state.waiting_for[0] }] }))
await run('5. "Book the 09:41 too" (parks again)', UserMsg({ content: 'Book AD 941 too.' }))
await run('6. The user interrupts the paused reply (USER_INTERRUPT)', UserInterruptEvent({ reply_id: agent.state.reply_id! }))

const same = isDeepStrictEqual(replay(JSON.parse(JSON.stringify(agent.log))), agent.state)
console.log(`\n${bold('replay(log)')} over ${agent.log.length} events ${same ? green('deep-equals the live state') : red('DIFFERS from the live state')}`)
if (!same) process.exitCode = 1
