// A paused reply survives its process: paused in one process, confirmed (and finished) in a
// second, which pauses again; interrupted in a third. The same for an external call and its
// result. Every step is a separate child process on the same file log.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readLogFile } from '../../lib/stores/file/read.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { runChild } from './helpers/child.js'
import { tempLog } from './helpers/files.js'

const test = suite('log/cross-process')

interface Run { types: string[]; reply_id: string; status: string; waiting: string[] }
interface Report { pid: number; opened: { status: string; reply_id: string | null; waiting: string[] }; runs: Run[]; context: number }

const step = async (name: string, file: string): Promise<Report> => {
  const { code, stdout, stderr } = await runChild('pauseChild.ts', [name, file])
  assert.is(code, 0, `step ${name} exits cleanly: ${stderr}`)
  return JSON.parse(stdout) as Report
}

const end = (types: string[]) => types[types.length - 1]

test('a reply paused in one process is confirmed in a second and interrupted on a new pause in a third', async () => {
  const file = tempLog()
  const ask = await step('ask', file)
  assert.equal(ask.runs[0].waiting, ['k1:asking'])
  assert.is(end(ask.runs[0].types), 'REQUIRE_USER_CONFIRM')
  assert.not.ok(ask.runs[0].types.includes('REPLY_END'), 'a paused reply has no REPLY_END')

  const confirm = await step('confirm', file)
  assert.is.not(confirm.pid, ask.pid)
  assert.equal(confirm.opened, { status: 'paused', reply_id: ask.runs[0].reply_id, waiting: ['k1:asking'] })
  const [resumed, next] = confirm.runs
  assert.is(resumed.types[0], 'TOOL_RESULT_START', 'resuming yields no second REPLY_START')
  assert.is(end(resumed.types), 'REPLY_END')
  assert.is(resumed.status, 'idle')
  assert.equal(next.waiting, ['k2:asking'])

  const interrupt = await step('interrupt', file)
  assert.is.not(interrupt.pid, confirm.pid)
  assert.equal(interrupt.opened, { status: 'paused', reply_id: next.reply_id, waiting: ['k2:asking'] })
  assert.equal(interrupt.runs[0].types, ['TOOL_RESULT_START', 'TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END', 'REPLY_END'])
  assert.is(end(interrupt.runs[1].types), 'REPLY_END', 'the next message simply continues')

  const { events, torn } = readLogFile(file)
  assert.is(torn, null)
  assert.equal(checkLog(events).violations, [])
  const ends = events.filter((e) => e.type === 'REPLY_END')
  assert.equal(ends.map((e) => e.type === 'REPLY_END' && e.finished_reason), ['completed', 'interrupted', 'completed'])
  const results = events.filter((e) => e.type === 'TOOL_RESULT_END')
  assert.equal(results.map((e) => e.type === 'TOOL_RESULT_END' && `${e.tool_call_id}:${e.state}`), ['k1:success', 'k2:interrupted'])
})

test('an external call submitted in one process takes its result in another', async () => {
  const file = tempLog()
  const submit = await step('submit', file)
  assert.equal(submit.runs[0].waiting, ['x1:submitted'])
  const result = await step('result', file)
  assert.equal(result.opened, { status: 'paused', reply_id: submit.runs[0].reply_id, waiting: ['x1:submitted'] })
  assert.is(result.runs[0].types[0], 'TOOL_RESULT_TEXT_DELTA', 'no second TOOL_RESULT_START after the pause')
  assert.is(end(result.runs[0].types), 'REPLY_END')
  const { events } = readLogFile(file)
  assert.equal(checkLog(events).violations, [])
  const last = checkLog(events).state.context.at(-1)!
  assert.ok(last.content.some((b) => b.type === 'tool_result' && b.output === 'sunny'), 'the external result is in the context')
})

test.run()
