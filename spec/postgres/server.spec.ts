// Two `agentlog serve` processes on one PostgreSQL database: a follower on B sees every event of a
// reply running on A, Stop posted to B interrupts the reply streaming from A, and an approval posted
// to B resumes a reply paused on A.
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent, AgentState } from '../../lib/index.js'
import { readSse } from '../../lib/client/sse.js'
import { serveProcess, type ServeProcess } from '../helpers/serveProcess.js'
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

  test.run()
}
