// The inspection commands as a user runs them (the real `agentlog` binary, a child process):
// --version and --help; a closed pipe ends them quietly; names are not doubled ("assistant
// assistant"); strings from a model, a tool or the file are printed with control characters
// escaped; a directory or a missing file is a one-line error with a code and exit 1; a usage
// mistake exits 2 (issue 10 item 11, issue 9 items 14 and 18).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, memoryLog, scriptedModel, say, type AgentEvent, type ModelChunk } from '../../lib/index.js'
import { main } from '../../lib/cli/main.js'
import { MARKER } from '../../lib/stores/file/read.js'
import { tempDir } from '../log/helpers/files.js'

const test = suite('cli/logTools')
const bin = fileURLToPath(new URL('../../bin/agentlog.js', import.meta.url))
const root = fileURLToPath(new URL('../../', import.meta.url))
const dir = tempDir()

const agentlog = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 })
/** The command in process, with its output captured as the terminal would get it (one write per line). */
const run = async (...argv: string[]) => {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) })
  return { status, stdout, stderr }
}
const write = (name: string, events: readonly AgentEvent[]) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, MARKER + events.map((e) => `${JSON.stringify(e)}\n`).join(''))
  return file
}
/** Raw control characters other than the newline that ends a line (and \r\n pairs, none expected). */
const rawControls = (text: string) => [...text.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/g)].map((m) => m[0].charCodeAt(0).toString(16))

const ESC = '\u001b'
const hostile = `${ESC}[2J${ESC}[31mPWNED\r\u009b1A\u202eevil`

let hostileLog = ''
let brokenHostileLog = ''
let longLog = ''

test.before(async () => {
  // A model whose name, text, tool name, tool call id and arguments carry terminal control sequences.
  const call = (delta: string): ModelChunk => ({ type: 'tool_call', id: `id${ESC}[1A`, name: `tool${ESC}]0;title\u0007`, delta })
  const model = scriptedModel([[...say(`hi ${hostile}`), call('{"cmd": "rm -rf /\r        '), call(`${ESC}[2K"}`)], [...say(`done ${hostile}`)]], { name: `model${ESC}[5m` })
  const agent = createAgent({ name: `Friday${ESC}[8m`, model, log: memoryLog() })
  await agent.reply({ role: 'user', content: `question ${hostile}`, name: `ann${ESC}[1m` })
  hostileLog = write('hostile.jsonl', agent.log)
  // The same log with a REPLY_END for an unknown (hostile) reply id: validate reports it.
  const broken = agent.log.map((e) => (e.type === 'REPLY_END' ? { ...e, reply_id: `x${ESC}[2J\r` } : e))
  brokenHostileLog = write('broken-hostile.jsonl', broken)
  const chatty = createAgent({ name: 'assistant', model: scriptedModel([[...say('word '.repeat(50))]], { onExhausted: 'repeat-last' }) })
  for (let i = 0; i < 100; i++) await chatty.reply(`question ${i}`)
  longLog = write('long.jsonl', chatty.log)
})

test('agentlog --version prints the package version; --help lists the commands; both exit 0', () => {
  const version = agentlog('--version')
  assert.is(version.status, 0, version.stderr)
  assert.is(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version)
  const help = agentlog('--help')
  assert.is(help.status, 0, help.stderr)
  for (const command of ['chat', 'replay', 'inspect', 'validate']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`))
  const commandHelp = agentlog('replay', '--help')
  assert.is(commandHelp.status, 0)
  assert.match(commandHelp.stdout, /agentlog replay \(FILE \| DIR --session ID/)
})

for (const command of ['replay', 'inspect']) {
  test(`agentlog ${command} FILE | head -2 ends quietly: no EPIPE, no stack`, () => {
    const piped = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${bin}" ${command} "${longLog}" | head -2`], { encoding: 'utf8', timeout: 30_000 })
    assert.is(piped.stdout.split('\n').filter(Boolean).length, 2)
    assert.is(piped.stderr, '', piped.stderr)
    assert.is(piped.status, 0)
  })
}

test('replay names the speaker once: "assistant", not "assistant assistant"', async () => {
  const replay = await run('replay', longLog, '--at', '20')
  assert.is(replay.status, 0, replay.stderr)
  assert.not.match(replay.stdout, /assistant assistant|user user/)
  assert.match(replay.stdout, /\[\d+\] assistant \(reply /)
  assert.match(replay.stdout, /\d+ {2}user: "question 0"/)
})

for (const args of [['replay'], ['replay', '--json'], ['inspect'], ['inspect', '--json'], ['validate'], ['validate', '--json']]) {
  test(`agentlog ${args.join(' ')} prints strings from the model, the tools and the file with control characters escaped`, async () => {
    const file = args[0] === 'validate' ? brokenHostileLog : hostileLog
    const result = await run(args[0], file, ...args.slice(1))
    assert.is(result.status, args[0] === 'validate' ? 1 : 0, result.stderr)
    assert.equal(rawControls(result.stdout + result.stderr), [])
    assert.ok(result.stdout.includes('\\u001b'), `the escape is shown visibly:\n${result.stdout}`)
    if (args.includes('--json')) JSON.parse(result.stdout)
  })
}

test('the JSON output, parsed, still holds the original strings', async () => {
  const parsed = JSON.parse((await run('replay', hostileLog, '--json')).stdout)
  assert.ok(JSON.stringify(parsed.state.context).includes(JSON.stringify(hostile).slice(1, -1)))
})

test('a bad line with control characters is reported with them escaped', async () => {
  const file = path.join(dir, 'bad.jsonl')
  fs.writeFileSync(file, `${MARKER}{"type": "${ESC}[2J\\u001b"}\n{"not": "an event"}\n`)
  for (const command of ['replay', 'inspect', 'validate']) {
    const result = await run(command, file)
    assert.is(result.status, 1, `${command}: ${result.stderr}`)
    assert.equal(rawControls(result.stdout + result.stderr), [], command)
  }
})

for (const command of ['replay', 'inspect', 'validate']) {
  test(`agentlog ${command} DIR without --session is a usage error naming --session (a directory is a sessions store); a missing file: one line with a code, exit 1`, async () => {
    const onDir = command === 'replay' ? agentlog(command, dir) : await run(command, dir)
    assert.is(onDir.status, 2, onDir.stderr)
    assert.match(onDir.stderr.split('\n')[0], /is a session store: name the session with --session ID/)
    assert.not.match(onDir.stderr, /\n\s+at /)
    const missing = await run(command, path.join(dir, 'nope.jsonl'))
    assert.is(missing.status, 1, missing.stderr)
    assert.is(missing.stderr.trim().split('\n').length, 1, missing.stderr)
    assert.match(missing.stderr, /(NOT_FOUND|INVALID_LOG).*nope\.jsonl/)
  })

  test(`agentlog ${command} with a usage mistake exits 2`, async () => {
    for (const args of [[], ['a.jsonl', 'b.jsonl'], ['--bogus', longLog]]) {
      const result = await run(command, ...args)
      assert.is(result.status, 2, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, /usage: agentlog/)
    }
  })
}

test('an unknown command exits 2', async () => {
  const result = await run(`nope${ESC}[2J`)
  assert.is(result.status, 2)
  assert.equal(rawControls(result.stderr), [])
})

test.run()
