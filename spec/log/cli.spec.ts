// The agentlog inspection commands on logs the specs produce (completed, interrupted, denied,
// errored, external, paused and user-interrupted replies, a crash-cut log): what replay, inspect
// and validate print, their exit codes, and that they never change a log.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runMain } from '../cli/helpers/main.js'
import { fileLog } from '../../lib/stores/file/index.js'
import { MARKER, readLogFile } from '../../lib/stores/file/read.js'
import { stateAt } from '../../lib/timeTravel/index.js'
import { createAgent, scriptedModel, type AgentEvent } from '../../lib/index.js'
import { allTools, runEveryEnding } from './helpers/agents.js'
import { tempDir } from './helpers/files.js'

const test = suite('log/cli')

const run = runMain

const dir = tempDir()
const paused = path.join(dir, 'paused.jsonl')
const interrupted = path.join(dir, 'interrupted.jsonl')
const write = (name: string, events: readonly AgentEvent[]) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, MARKER + events.map((e) => `${JSON.stringify(e)}\n`).join(''))
  return file
}
const restamp = (events: AgentEvent[]) => events.map((e, i) => ({ ...e, metadata: { ...e.metadata, seq: i + 1 } }) as AgentEvent)

test.before(async () => {
  const agent = await runEveryEnding(fileLog(paused))
  await agent.close()
  fs.copyFileSync(paused, interrupted)
  const again = createAgent({ name: 'Friday', model: scriptedModel([]), tools: allTools(), log: fileLog(interrupted) })
  await again.interrupt()
  await again.close()
})

test('replay prints one line per event with deltas coalesced, marked results, then the context', async () => {
  const { code, out, lines } = await run('replay', paused)
  const events = readLogFile(paused).events
  assert.is(code, 0)
  for (const expected of [
    'tool call echo({"text":"hello"}) [e1]', 'result echo [e1] ok "hello"', 'text "It said hello." (3 deltas)', 'thinking "Use echo."',
    '[INTERRUPT] requested for running reply', 'result slow [s1] [INTERRUPTED] "<system-reminder>The tool call has been interrupted',
    'text "Let me think about " (2 deltas)', 'model call ends [INTERRUPTED]: 7 in / 2 out tokens', 'user [DENIES] delete_file [d1]', 'result delete_file [d1] [DENIED]',
    'ends [ERROR] after', 'rate_limit: "Too many requests"', 'PAUSED: waiting for the external result of lookup({"q":"weather"}) [x1]',
    'result lookup [x1] ok "sunny"', 'PAUSED: waiting for the user to confirm delete_file({"path":"/tmp/x"}) [d2]',
    `Context after seq ${events.length} (paused, waiting for delete_file [d2] (asking))`, 'result delete_file [d1] [DENIED]',
  ]) assert.ok(out.includes(expected), `replay shows ${expected}`)
  const grouped = ['TEXT_BLOCK_END', 'THINKING_BLOCK_END', 'DATA_BLOCK_END', 'TOOL_CALL_END', 'TOOL_RESULT_END', 'MODEL_CALL_USAGE', 'TOOL_STARTED', 'RUNS_DECIDED']
  const expectedLines = events.filter((e) => !e.type.endsWith('_DELTA') && !grouped.includes(e.type)).length
  const timeline = lines.slice(1, lines.indexOf(''))
  assert.is(timeline.length, expectedLines, 'one line per event, each group of deltas on one line')
})

test('replay --at SEQ stops there and shows the context at that point; --json gives the same state', async () => {
  const events = readLogFile(paused).events
  const at = events.findIndex((e) => e.type === 'TOOL_RESULT_START' && e.tool_call_id === 's1') + 1
  const { code, out, lines } = await run('replay', paused, '--at', String(at))
  assert.is(code, 0)
  assert.is(lines[0], `${paused}: events 1-${at} of ${events.length}`)
  assert.ok(out.includes('result slow [s1] (open)'), 'the running tool result is shown open at the cut')
  assert.ok(out.includes(`Context after seq ${at} (running):`))
  assert.not.ok(out.includes('[INTERRUPT]'), 'nothing after the cut')
  const json = JSON.parse((await run('replay', paused, '--at', String(at), '--json')).out)
  assert.equal(json.state, JSON.parse(JSON.stringify(stateAt(events, at))))
  assert.ok(json.timeline.every((e: { to: number }) => e.to <= at))
})

test('inspect lists replies with end reasons and durations, usage, tool calls by state, pauses and interrupts', async () => {
  const { code, out } = await run('inspect', paused)
  assert.is(code, 0)
  const state = stateAt(readLogFile(paused).events, readLogFile(paused).events.length)
  assert.ok(out.includes(`Usage: ${state.usage.input_tokens} input, ${state.usage.output_tokens} output`))
  assert.ok(out.includes('[ERROR] rate_limit: "Too many requests"'))
  assert.match(out, /\[INTERRUPTED\]  \d+\.\d\d s  seq \d+-\d+/)
  assert.match(out, /\(paused\)  -  seq \d+-…/)
  const s = JSON.parse((await run('inspect', paused, '--json')).out)
  assert.equal(s.replies.map((r: { end: string }) => r.end), ['completed', 'interrupted', 'interrupted', 'completed', 'error', 'completed', 'paused'])
  assert.ok(s.replies.every((r: { seconds: number | null; end: string }) => (r.end === 'paused') === (r.seconds === null)), 'every ended reply has a duration')
  assert.equal(s.results, { success: 2, interrupted: 1, denied: 1, open: 1 })
  assert.equal(s.tools.delete_file, { denied: 1, open: 1 })
  assert.equal(s.pauses.map((p: { kind: string; outcome: string }) => `${p.kind}:${p.outcome}`), ['confirm:denied', 'external:result given', 'confirm:waiting'])
  assert.equal(s.interrupts.map((x: { kind: string }) => x.kind), ['cancel', 'cancel'])
  assert.equal(s.usage, state.usage)
})

test('inspect shows a USER_INTERRUPT of a paused reply and the pause it resolved', async () => {
  const s = JSON.parse((await run('inspect', interrupted, '--json')).out)
  assert.equal(s.interrupts.map((x: { kind: string }) => x.kind), ['cancel', 'cancel', 'user'])
  assert.is(s.pauses[2].outcome, 'interrupted')
  assert.is(s.replies[6].end, 'interrupted')
  assert.ok((await run('inspect', interrupted)).out.includes('USER_INTERRUPT of paused reply'))
})

test('validate accepts the logs the agent writes (exit 0) and notes a paused reply', async () => {
  for (const file of [paused, interrupted]) {
    const { code, out } = await run('validate', file)
    assert.is(code, 0, out)
    assert.match(out, `${file}: valid (`)
  }
  assert.match((await run('validate', paused)).err, /note: .*reply \S+ is paused, waiting for delete_file \(d2, asking\)/)
})

test('validate reports the first violation with its line number (exit 1)', async () => {
  const events = readLogFile(paused).events
  const unanswered = restamp(events.filter((e) => !(e.type.startsWith('TOOL_RESULT_') && 'tool_call_id' in e && e.tool_call_id === 'e1')))
  const end = unanswered.findIndex((e) => e.type === 'REPLY_END') + 1
  const file = write('unanswered.jsonl', unanswered)
  const { code, out } = await run('validate', file)
  assert.is(code, 1)
  assert.ok(out.includes(`${file}:${end + 1}: tool call e1 (echo) has 0 results after the reply ended (1)`), out)
  assert.ok(out.includes(`INVALID (`) && out.includes(`the first on line ${end + 1}`))
  const json = JSON.parse((await run('validate', file, '--json')).out)
  assert.is(json.valid, false)
  assert.is(json.violations[0].line, end + 1)

  const broken = fs.readFileSync(paused, 'utf8').split('\n')
  broken[9] = '{"oops"'
  const corrupt = write('corrupt.jsonl', [])
  fs.writeFileSync(corrupt, broken.join('\n'))
  const result = await run('validate', corrupt)
  assert.is(result.code, 1)
  assert.match(result.err, `${corrupt}:10: not valid JSON`)
})

test('a torn last line is noted, not an error; a newer format is refused', async () => {
  const events = readLogFile(paused).events
  const file = write('torn.jsonl', events)
  fs.appendFileSync(file, '{"id":"x","type":"TEXT_BLOCK_DEL')
  const { code, err } = await run('validate', file)
  assert.is(code, 0)
  assert.match(err, `${file}:${events.length + 2} is torn (no newline`)
  const newer = path.join(dir, 'newer.jsonl')
  fs.writeFileSync(newer, '{"agentlog":9}\n')
  const refused = await run('replay', newer)
  assert.is(refused.code, 1)
  assert.match(refused.err, 'newer agentlog (log format 9')
})

test('the commands never change a log, take no lock, and work on a log cut mid-reply', async () => {
  const events = readLogFile(paused).events
  const cut = events.findIndex((e) => e.type === 'TOOL_RESULT_START') + 2
  const file = write('cut.jsonl', events.slice(0, cut))
  const before = fs.readFileSync(file)
  const replayed = await run('replay', file)
  assert.ok(replayed.out.includes('(running)'))
  assert.is((await run('inspect', file)).code, 0)
  const validated = await run('validate', file)
  assert.is(validated.code, 0)
  assert.match(validated.err, 'ends inside running reply')
  assert.equal(fs.readFileSync(file), before)
  assert.not.ok(fs.existsSync(`${file}.lock`))
})

test('usage mistakes exit 2, a missing file exits 1', async () => {
  assert.is((await run()).code, 2)
  assert.is((await run('frobnicate')).code, 2)
  assert.is((await run('replay')).code, 2)
  assert.is((await run('replay', paused, '--at', 'x')).code, 2)
  assert.is((await run('replay', paused, '--at', '100000')).code, 2)
  assert.is((await run('inspect', paused, '--bogus')).code, 2)
  assert.is((await run('help')).code, 0)
  const missing = await run('validate', path.join(dir, 'nope.jsonl'))
  assert.is(missing.code, 1)
  assert.match(missing.err, 'does not exist')
})

test('bin/agentlog.js runs the CLI', () => {
  const bin = path.resolve('bin/agentlog.js')
  const ok = spawnSync(process.execPath, [bin, 'validate', paused], { encoding: 'utf8' })
  assert.is(ok.status, 0, ok.stderr)
  assert.match(ok.stdout, 'valid (')
  const bad = spawnSync(process.execPath, [bin, 'validate', path.join(dir, 'corrupt.jsonl')], { encoding: 'utf8' })
  assert.is(bad.status, 1)
})

test.run()
