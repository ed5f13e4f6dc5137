// What a person types in `agentlog chat` (issue 22 items 14, 15), in a real terminal (a
// pseudo-terminal made by util-linux `script`) and through pipes: text typed while a reply streams
// is not drawn into the reply but held as the next input; an approval accepts y/yes/n/no/e/edit
// exactly and asks again otherwise; [e]dit starts from the current arguments; run_command's output
// streams as it runs, and what it printed before Ctrl-C stays in the log as the partial result.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readLogFile } from '../../lib/node.js'
import { chatInTty, chatPiped, chatServer, hasScript, killChats } from './helpers/chat.js'

const test = suite('cli/chatInput')
test.after.each(killChats)

/** The screen text without cursor movements and carriage returns. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')

if (hasScript) {
  test('text typed while a reply streams is not drawn into the reply; it is the next input, shown after the prompt', async () => {
    const chat = chatInTty(['--scripted'], { NO_COLOR: '1' })
    await chat.waitFor('Ctrl-D exits', 'the banner', 20_000)
    chat.type('hello\r')
    await chat.waitFor('without a key.', 'the first answer', 20_000)
    await chat.waitFor(() => plain(chat.out.stdout).endsWith('> '), 'the prompt')
    chat.type('tell me more\r')
    await chat.waitFor('This is a long answer', 'the long answer to stream', 20_000)
    chat.type('typed meanwhile')
    await chat.waitFor('kept in the conversation.', 'the end of the long answer', 20_000)
    await chat.waitFor(() => plain(chat.out.stdout).endsWith('> typed meanwhile'), 'the held text after the prompt')
    const screen = plain(chat.out.stdout)
    const answer = screen.slice(screen.indexOf('This is a long answer'), screen.indexOf('kept in the conversation.'))
    assert.not.match(answer, 'typed', 'nothing typed is drawn inside the reply')
    chat.type('\r')
    await chat.waitFor('Still here.', 'the reply to the held text', 20_000)
    chat.type('\u0004')
    assert.is(await chat.exited, 0)
  })

  test('an approval accepts y/yes/n/no/e/edit exactly; [e]dit starts from the current arguments', async () => {
    const chat = chatInTty(['--scripted', '--tools'], { NO_COLOR: '1' })
    await chat.waitFor('Ctrl-D exits', 'the banner', 20_000)
    chat.type('hello\r')
    await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
    chat.type('yep\r')
    await chat.waitFor('answer y (yes), n (no) or e (edit).', 'the question again')
    chat.type('EDIT\r')
    await chat.waitFor(() => plain(chat.out.stdout).endsWith('new input (JSON): {"command":"echo hello from the scripted model"}'), 'the current arguments to edit')
    chat.type('\u007f\u007f again"}\r') // two backspaces remove `"}`
    await chat.waitFor('hello from the scripted model again', 'the edited command to run', 20_000)
    await chat.waitFor('Ask me anything else', 'the end of the reply', 20_000)
    chat.type('\u0004')
    assert.is(await chat.exited, 0)
  })
}

test('piped: "yes" approves, "no" denies, "nope" asks again', async () => {
  const chat = chatPiped(['--scripted', '--tools'], { NO_COLOR: '1' })
  chat.type('hello\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
  chat.type('nope\n')
  await chat.waitFor('answer y (yes), n (no) or e (edit).', 'the question again')
  chat.type('no\n')
  await chat.waitFor('You denied the command', 'the denial', 20_000)
  chat.type('command again\n')
  await chat.waitFor(/command again\n(.|\n)*\[e\]dit/, 'the next approval', 20_000)
  chat.type(' Yes \n')
  await chat.waitFor('The command ran', 'the approval', 20_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
})

test('run_command\'s output streams as the command prints it; Ctrl-C keeps what it printed as the partial result', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-chat-input-'))
  const log = join(dir, 'chat.jsonl')
  const command = 'for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; sleep 1; done'
  const server = await chatServer((_, n) => (n === 0 ? { call: { id: 'c1', name: 'run_command', args: JSON.stringify({ command }) } } : { text: 'ok' }))
  try {
    const chat = chatPiped(['--tools', '--log', log], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url, NO_COLOR: '1' })
    chat.type('count\n')
    await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval')
    chat.type('y\n')
    await chat.waitFor('line2\n', 'the second line while the command runs', 20_000)
    assert.not.match(chat.out.stdout, 'line10', 'the output is shown before the command ends')
    chat.child.kill('SIGINT')
    await chat.waitFor('[reply interrupted]', 'the stop')
    chat.child.stdin.end()
    assert.is(await chat.exited, 0)
    const result = readLogFile(log).events.flatMap((e) => e.type === 'TOOL_RESULT_END' ? [e] : [])
    assert.is(result.at(-1)?.state, 'interrupted')
    const printed = readLogFile(log).events.flatMap((e) => (e.type === 'TOOL_RESULT_TEXT_DELTA' ? [e.delta] : [])).join('')
    assert.match(printed, /^line1\nline2\n/, 'what the command printed is the start of the partial result')
    assert.not.match(printed, 'line10')
  } finally {
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
