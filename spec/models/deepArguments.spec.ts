// Issue 9, item 9: tool arguments nested about 5,000 levels deep (10 KB of JSON) are refused at
// the boundary as that call's `error` result, and the next requests to Anthropic (which would
// overflow the stack serializing them) go out: the session keeps working, reply after reply.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { createAgent, defineTool, UserMsg, type ToolResultBlock } from '../../lib/index.js'
import { anthropicModel } from '../../lib/models/anthropic.js'
import { assertAgentHolds } from '../helpers/hardening.js'
import { startServer } from './helpers/server.js'
import { anBlockStart, anBlockStop, anDelta, anMessageDelta, anMessageStart, anMessageStop } from './helpers/wire.js'

const test = suite('models/deep arguments')

const DEPTH = 5000
const deep = `{"v":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`

const toolTurn = { steps: [[
  anMessageStart({ input_tokens: 10, output_tokens: 1 }),
  anBlockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'store', input: {} }),
  anDelta(0, { type: 'input_json_delta', partial_json: deep }),
  anBlockStop(0), anMessageDelta('tool_use', { output_tokens: 5 }), anMessageStop(),
].join('')] }
const textTurn = (text: string) => ({ steps: [[
  anMessageStart({ input_tokens: 10, output_tokens: 1 }),
  anBlockStart(0, { type: 'text', text: '' }), anDelta(0, { type: 'text_delta', text }),
  anBlockStop(0), anMessageDelta('end_turn', { output_tokens: 2 }), anMessageStop(),
].join('')] })

test('5,000 levels of tool arguments become an error result; later requests still go out', async () => {
  const server = await startServer()
  try {
    server.reply(toolTurn, textTurn('That was too deep.'), textTurn('Still here.'))
    const ran: unknown[] = []
    const store = defineTool({ name: 'store', description: 'Stores a value', input: z.object({ v: z.unknown() }), execute: (input) => { ran.push(input); return 'ok' } })
    const model = anthropicModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseURL: server.url, maxTokens: 64, maxRetries: 0 })
    const agent = createAgent({ name: 'A', model, tools: [store] })
    const first = await agent.reply(UserMsg({ content: 'store this' }))
    assert.is(first.finished_reason, 'completed')
    const result = agent.state.context[1].content.find((b): b is ToolResultBlock => b.type === 'tool_result')!
    assert.is(result.state, 'error')
    assert.match(result.output as string, /too large or too deeply nested/)
    assert.equal(ran, [], 'the tool never ran')
    assert.is(server.requests.length, 2, 'the request after the refusal went out')
    const second = await agent.reply(UserMsg({ content: 'are you there?' }))
    assert.is(second.finished_reason, 'completed', 'the session keeps working')
    assert.is(server.requests.length, 3)
    assertAgentHolds(agent)
  } finally {
    await server.close()
  }
})

test.run()
