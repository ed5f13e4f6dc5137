// Issue 30 on AG-UI: a RunAgentInput for a thread whose run still runs is a steer of the running
// reply; that second run streams the reply's events from there to its end (checked by verifyEvents
// and @ag-ui/core's schemas), and the steer reaches the next model call after the tool results.
import { HttpAgent, type BaseEvent } from '@ag-ui/client'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { callTool, defineTool, say, scriptedModel, type AgentState } from '../../lib/index.js'
import { sleep } from '../../lib/core/abort.js'
import type { AgUiEvent } from '../../lib/server/agui/types.js'
import { startServer } from '../server/helpers.js'
import { verify } from '../server/agui/helpers.js'

const test = suite('talk/agui')
const wait = defineTool({ name: 'wait', description: 'Waits', input: z.object({ ms: z.number() }), execute: async ({ ms }, { signal }) => (await sleep(ms, signal), 'waited') })
const sessionState = async (url: string, id: string) => (await (await fetch(`${url}/sessions/${id}`)).json()) as AgentState

const run = async (agent: HttpAgent) => {
  const events: AgUiEvent[] = []
  let failed: unknown = null
  await agent.runAgent({}, { onEvent: ({ event }: { event: BaseEvent }) => { events.push(event as unknown as AgUiEvent) } }).catch((error: unknown) => { failed = error })
  await verify(events)
  return { events, failed }
}

test('a run sent while the thread\'s run still runs steers it and streams the rest of the reply', async () => {
  const model = scriptedModel([[...callTool('w-1', 'wait', { ms: 300 })], [...say('Steered answer.')]])
  const server = await startServer(() => ({ name: 'Friday', tools: [wait], model }))
  try {
    const first = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-steer' })
    first.addMessage({ id: 'u-1', role: 'user', content: 'start' })
    const firstRun = run(first)
    while ((await sessionState(server.url, 'thread-steer').catch(() => null))?.status !== 'running') await sleep(10)
    const second = new HttpAgent({ url: `${server.url}/ag-ui`, threadId: 'thread-steer' })
    second.addMessage({ id: 'u-1', role: 'user', content: 'start' })
    second.addMessage({ id: 'u-2', role: 'user', content: 'keep it short' })
    const steered = await run(second)
    assert.is(steered.failed, null)
    const types = steered.events.map((e) => e.type)
    assert.is(types[0], 'RUN_STARTED')
    assert.is(types.at(-1), 'RUN_FINISHED')
    assert.ok(steered.events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT' && (e as { delta?: string }).delta === 'Steered answer.'), 'the steered run streams the rest of the reply')
    assert.is((await firstRun).failed, null)
    const state = await sessionState(server.url, 'thread-steer')
    assert.equal(state.context.filter((m) => m.role === 'user').map((m) => m.id), ['u-1', 'u-2'])
    assert.is(model.requests.length, 2)
    assert.is(model.requests[1].messages.at(-1)!.id, 'u-2', 'the steer is the last message of the next model call')
  } finally {
    await server.close()
  }
})

test.run()
