// The demo without a key (issue 22 item 5): `agentlog serve --scripted` offers a tool that asks
// (with arguments worth editing), an external tool, an image tool, a sub-agent (issue 21: its report
// streams into the call, its own session linked) and a slow tool to stop, one per message, and its
// answers speak of the page's buttons; `agentlog chat --scripted --tools` shows the external, image,
// sub-agent and slow tools in the terminal, in words about Ctrl-C.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readSse } from '../../lib/client/sse.js'
import type { AgentState } from '../../reducers/state.js'
import { serveProcess } from '../helpers/serveProcess.js'
import { chatPiped, killChats } from './helpers/chat.js'

const test = suite('cli/demo')
test.after.each(killChats)

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** Sends a message and reads the reply's stream to its end or pause; the text it streamed (and, when asked, its events). */
const reply = async (base: string, input: string, events: { type: string; delta?: string; metadata?: Record<string, unknown> }[] = []): Promise<string> => {
  let text = ''
  for await (const message of readSse(await post(`${base}/replies`, { input }))) {
    const event = message.data as { type: string; delta?: string; metadata?: Record<string, unknown> }
    events.push(event)
    if (event.type === 'TEXT_BLOCK_DELTA') text += event.delta
  }
  return text
}
const state = async (base: string) => (await (await fetch(base)).json()) as AgentState
/** The state once `check` holds (a resumed reply runs on after POST /input answers). */
const until = async (base: string, check: (s: AgentState) => boolean, what: string): Promise<AgentState> => {
  const start = Date.now()
  for (let s = await state(base); ; s = await state(base)) {
    if (check(s)) return s
    if (Date.now() - start > 20_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s).slice(-1500)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
const results = (s: AgentState) => s.context.flatMap((m) => m.content).filter((b) => b.type === 'tool_result')

test('serve --scripted: an approval with editable arguments, an external result, an image, a sub-agent, a slow tool stopped; the answers speak of the page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-demo-'))
  const server = serveProcess(['--scripted', '--store', dir])
  try {
    const url = await server.url
    const { session_id } = (await (await post(`${url}/sessions`, {})).json()) as { session_id: string }
    const base = `${url}/sessions/${session_id}`
    const offered = ((await (await fetch(`${base}/tools`)).json()) as { tools: { name: string; external: boolean }[] }).tools
    assert.equal(offered.map((t) => t.name).sort(), ['count_slowly', 'draw_chart', 'pick_date', 'research', 'send_email'])
    assert.ok(offered.find((t) => t.name === 'pick_date')!.external)

    const said: string[] = [await reply(base, 'hi')]
    let now = await state(base)
    assert.is(now.status, 'paused')
    const [asking] = now.waiting_for
    assert.is(asking.name, 'send_email')
    assert.is(asking.state, 'asking')
    assert.equal(Object.keys(JSON.parse(asking.input)).sort(), ['body', 'subject', 'to'])
    assert.match(said[0], /Approve.*Deny.*Edit/)
    const approved = await post(`${base}/input`, { approve: { tool_call_id: asking.id, input: { ...JSON.parse(asking.input), to: 'bob@example.com' } } })
    assert.is(approved.status, 200, await approved.clone().text())
    now = await until(base, (s) => s.status === 'idle', 'the approved reply to end')
    assert.match(JSON.stringify(results(now).at(-1)!.output), 'bob@example.com')

    said.push(await reply(base, 'next'))
    now = await state(base)
    assert.is(now.waiting_for[0]?.name, 'pick_date')
    assert.is(now.waiting_for[0].state, 'submitted')
    assert.match(said[1], 'Submit result')
    await post(`${base}/input`, { submit: { tool_call_id: now.waiting_for[0].id, result: '2026-12-24' } })
    assert.match(JSON.stringify((await until(base, (s) => s.status === 'idle', 'the reply after the result to end')).context.at(-1)!.content), 'You picked: 2026-12-24')

    said.push(await reply(base, 'next'))
    const image = results(await state(base)).at(-1)!
    assert.is(image.name, 'draw_chart')
    assert.ok(Array.isArray(image.output) && image.output.some((b) => b.type === 'data' && b.source.media_type === 'image/png'))

    const events: Parameters<typeof reply>[2] = []
    said.push(await reply(base, 'next', events))
    const research = results(await state(base)).at(-1)!
    assert.is(research.name, 'research')
    assert.is(research.state, 'success')
    assert.match(JSON.stringify(research.output), 'Findings:')
    const started = events.find((e) => e.type === 'TOOL_RESULT_START' && e.metadata?.child_session_id)
    assert.ok(started, "the call's TOOL_RESULT_START names the sub-agent's session")
    assert.ok(events.filter((e) => e.type === 'TOOL_RESULT_TEXT_DELTA').length > 1, "the sub-agent's report streams into the call")
    assert.match(said.at(-1)!, /research card.*Stop/)

    const slow = reply(base, 'next')
    await until(base, (s) => JSON.stringify(s.reply_msg?.content.find((b) => b.type === 'tool_result')?.output ?? '').includes('2\\n'), 'the slow tool to print 2')
    await post(`${base}/interrupt`, {})
    said.push(await slow)
    const stopped = results(await state(base)).at(-1)!
    assert.is(stopped.name, 'count_slowly')
    assert.is(stopped.state, 'interrupted')
    const printed = typeof stopped.output === 'string' ? stopped.output : stopped.output.map((b) => (b.type === 'text' ? b.text : '')).join('')
    assert.match(printed, /^1\n2\n/, 'what it printed before the stop is kept')
    assert.match(said[4], 'Press Stop')
    for (const text of said) assert.not.match(text, 'Ctrl-C')
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('chat --scripted --tools: after the command, an external result typed at the prompt, an image, a sub-agent, a slow tool stopped with Ctrl-C', async () => {
  const chat = chatPiped(['--scripted', '--tools'], { NO_COLOR: '1' })
  chat.type('hello\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
  chat.type('y\n')
  await chat.waitFor('Ask me anything else', 'the end of the first reply', 20_000)
  chat.type('next\n')
  await chat.waitFor('its result (one line; Ctrl-C interrupts): ', 'the external tool', 20_000)
  chat.type('2026-12-24\n')
  await chat.waitFor('You picked: 2026-12-24.', 'the answer about the result', 20_000)
  chat.type('next\n')
  await chat.waitFor('[image/png]', 'the image', 20_000)
  await chat.waitFor('Send another message', 'the end of the image reply', 20_000)
  chat.type('next\n')
  await chat.waitFor('Now a sub-agent', 'the sub-agent', 20_000)
  await chat.waitFor('The Researcher reported back', 'the end of the sub-agent reply', 30_000)
  assert.match(chat.out.stdout, 'Findings: the log of every agent', "the sub-agent's report shows as the call's result")
  chat.type('next\n')
  await chat.waitFor('Press Ctrl-C whenever you like', 'the slow tool', 20_000)
  await chat.waitFor(/count_slowly.*\n1\n2\n/, 'two numbers', 20_000)
  chat.child.kill('SIGINT')
  await chat.waitFor('[reply interrupted]', 'the stop')
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  assert.match(chat.out.stdout, /\n1\n2\n(\d+\n)*\[interrupted\]\n/)
  assert.not.match(chat.out.stdout, /Press Stop|the page's/)
})

test.run()
