// Two `agentlog serve` processes on one PostgreSQL database: a follower on B sees every event of a
// reply running on A, Stop posted to B interrupts the reply streaming from A, and an approval posted
// to B resumes a reply paused on A; for a tree paused on A by its sub-agent's confirmation, B lists
// the sub-agent's call (GET /waiting) and an AG-UI resume posted to B answers it where it waits.
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent, AgentState } from '../../lib/index.js'
import { readSse } from '../../lib/client/sse.js'
import { serveProcess, type ServeProcess } from '../helpers/serveProcess.js'
import { untilIdle } from '../server/helpers.js'
import { DATABASE_URL, dropSchemas, newSchema, postgresAvailable } from './helpers/db.js'

const agent = fileURLToPath(new URL('./helpers/servedAgent.ts', import.meta.url))
const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const stream = async (response: Response, until: (e: AgentEvent) => boolean = () => false) => {
  const out: { seq: number; event: AgentEvent }[] = []
  for await (const m of readSse(response)) {
    out.push({ seq: Number(m.id), event: m.data as AgentEvent })
    if (until(out.at(-1)!.event)) break
  }
  return out
}
const newSession = async (url: string) => ((await (await post(`${url}/sessions`, {})).json()) as { session_id: string }).session_id

if (postgresAvailable('spec/postgres/server.spec.ts')) {
  const test = suite('postgres/server: two serve processes on one database')
  const schema = newSchema()
  const servers: ServeProcess[] = []
  let A = ''
  let B = ''

  test.before(async () => {
    servers.push(serveProcess(['--agent', agent, '--store', DATABASE_URL, '--schema', schema]))
    A = await servers[0].url
    servers.push(serveProcess(['--agent', agent, '--store', DATABASE_URL, '--schema', schema]))
    B = await servers[1].url
  })
  test.after(async () => {
    for (const server of servers) assert.is(await server.stop(), 0)
    await dropSchemas()
  })

  test('a follower on B sees every event of a reply running on A, in order, without gaps', async () => {
    const id = await newSession(A)
    const follower = stream(await fetch(`${B}/sessions/${id}/events?from_seq=0`), (e) => e.type === 'REPLY_END')
    const streamed = await stream(await post(`${A}/sessions/${id}/replies`, { input: 'hello' }))
    const followed = await follower
    assert.equal(followed.map((e) => e.seq), Array.from({ length: followed.length }, (_, i) => i + 1))
    const ids = new Set(followed.map((e) => e.event.id))
    assert.ok(streamed.every((e) => ids.has(e.event.id)), 'B saw every event A streamed')
    assert.is(followed.at(-1)!.event.type, 'REPLY_END')
  })

  test('Stop posted to B interrupts the reply streaming from A', async () => {
    const id = await newSession(A)
    const reply = await post(`${A}/sessions/${id}/replies`, { input: 'slow please' })
    const events: AgentEvent[] = []
    let stopped: Promise<Response> | null = null
    for await (const m of readSse(reply)) {
      const event = m.data as AgentEvent
      events.push(event)
      if (event.type === 'TEXT_BLOCK_DELTA' && !stopped) stopped = post(`${B}/sessions/${id}/interrupt`, {})
    }
    const answer = await stopped!
    assert.is(answer.status, 200)
    const end = events.at(-1)!
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'interrupted')
    assert.ok(events.filter((e) => e.type === 'TEXT_BLOCK_DELTA').length < 200, 'it stopped before the end of the text')
    const state = (await (await fetch(`${B}/sessions/${id}`)).json()) as AgentState
    assert.is(state.status, 'idle')
  })

  test('an approval posted to B resumes a reply paused by A', async () => {
    const id = await newSession(A)
    const first = await stream(await post(`${A}/sessions/${id}/replies`, { input: 'remove /a' }))
    assert.is(first.at(-1)!.event.type, 'REQUIRE_USER_CONFIRM')
    const from = first.at(-1)!.seq
    const approved = await post(`${B}/sessions/${id}/input`, { approve: 'c-1' })
    assert.is(approved.status, 200)
    const rest = await stream(await fetch(`${B}/sessions/${id}/events?from_seq=${from}`), (e) => e.type === 'REPLY_END')
    const end = rest.at(-1)!.event
    assert.is(end.type === 'REPLY_END' && end.finished_reason, 'completed')
    const state = (await (await fetch(`${A}/sessions/${id}`)).json()) as AgentState
    assert.ok(JSON.stringify(state.context.at(-1)).includes('removed /a'))
    assert.is(state.seq, rest.at(-1)!.seq)
  })

  /** The AG-UI events of a run posted to `url`. */
  const agUiRun = async (url: string, body: Record<string, unknown>) => {
    const events: Record<string, unknown>[] = []
    for await (const m of readSse(await post(`${url}/ag-ui`, body))) events.push(m.data as Record<string, unknown>)
    return events
  }

  test("a tree paused on A by its sub-agent's confirmation: B lists the sub-agent's call with its session (GET /waiting)", async () => {
    const id = await newSession(A)
    const first = await stream(await post(`${A}/sessions/${id}/replies`, { input: 'delegate' }))
    assert.is(first.at(-1)!.event.type, 'REQUIRE_EXTERNAL_EXECUTION', "the root waits on its sub-agent's call")
    const child = first.find((e) => e.event.type === 'TOOL_RESULT_START')!.event.metadata.child_session_id
    assert.type(child, 'string')
    for (const server of [A, B]) {
      const { waiting_for } = (await (await fetch(`${server}/sessions/${id}/waiting`)).json()) as { waiting_for: { id: string; name: string; state: string; session_id: string }[] }
      assert.equal(waiting_for.map((c) => [c.id, c.name, c.state, c.session_id]), [['r-1', 'remove', 'asking', child]], server === A ? 'the owner' : 'another process')
    }
    const approved = await post(`${B}/sessions/${id}/input`, { approve: 'r-1' })
    assert.is(approved.status, 200, await approved.clone().text())
    const state = await untilIdle(B, id)
    assert.is(state.context.at(-1)!.finished_reason, 'completed')
    assert.equal(((await (await fetch(`${B}/sessions/${id}/waiting`)).json()) as { waiting_for: unknown[] }).waiting_for, [])
  })

  test("an AG-UI resume posted to B answers the sub-agent's interrupt of a tree paused on A; repeated, it changes nothing", async () => {
    const threadId = `thread-${Date.now()}`
    const messages = [{ id: 'u-1', role: 'user', content: 'delegate' }]
    const first = await agUiRun(A, { threadId, runId: 'run-1', messages })
    const finished = first.at(-1)! as { type: string; outcome?: { type: string; interrupts?: { id: string; metadata?: { session_id?: string } }[] } }
    assert.is(finished.type, 'RUN_FINISHED')
    assert.is(finished.outcome?.type, 'interrupt')
    const [interrupt] = finished.outcome!.interrupts!
    assert.type(interrupt.metadata?.session_id, 'string', "the interrupt names the sub-agent's session")
    assert.is(interrupt.id, `${interrupt.metadata?.session_id}/r-1`, 'keyed by session and call')
    assert.is.not(interrupt.metadata?.session_id, threadId)
    const resume = [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }]
    const resumed = await agUiRun(B, { threadId, runId: 'run-2', messages, resume })
    assert.is(resumed.find((e) => e.type === 'RUN_ERROR'), undefined, JSON.stringify(resumed.filter((e) => e.type === 'RUN_ERROR')))
    const result = resumed.find((e) => e.type === 'TOOL_CALL_RESULT') as { toolCallId: string; content: string } | undefined
    assert.is(result?.toolCallId, 'c-1', "the lead's research call gets its sub-agent's outcome")
    assert.is(result?.content, 'Removed.')
    assert.equal(resumed.at(-1), { type: 'RUN_FINISHED', threadId, runId: 'run-2' })
    const state = await untilIdle(A, threadId)
    assert.is(state.context.at(-1)!.finished_reason, 'completed')
    const again = await agUiRun(B, { threadId, runId: 'run-3', messages, resume })
    assert.equal(again.map((e) => e.type), ['RUN_STARTED', 'RUN_FINISHED'], "a repeated resume of the sub-agent's interrupt changes nothing")
    assert.is((await untilIdle(A, threadId)).seq, state.seq)
  })

  test.run()
}
