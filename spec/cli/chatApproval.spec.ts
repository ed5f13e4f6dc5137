// `agentlog chat` approvals through pipes, as a transcript reads: what the user types is echoed
// after its prompt (issue 10 item 4); the scripted chat calls the built-in tools, one of which asks
// (item 9); people see "[denied by you]" / "[interrupted]", never the model's reminder (item 8);
// Ctrl-C at an approval interrupts the paused reply and returns to the prompt (item 5); a tool
// argument with \r or escape sequences cannot rewrite the approval line (issue 9 item 14).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chatPiped, chatServer, killChats } from './helpers/chat.js'

const test = suite('cli/chatApproval')
test.after.each(killChats)
const ESC = '\u001b'

test('piped: the transcript shows the question, the y/n/e answers and the edited JSON after their prompts', async () => {
  const chat = chatPiped(['--scripted', '--tools'], { NO_COLOR: '1' })
  chat.type('hello\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
  chat.type('e\n')
  await chat.waitFor('new input (JSON): ')
  chat.type('{"command": "echo edited by the user"}\n')
  await chat.waitFor('Ask me anything else', 'the end of the reply', 20_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  const out = chat.out.stdout
  assert.match(out, /\n> hello\n/)
  assert.match(out, /\[e\]dit \(Ctrl-C interrupts\)\? e\n/)
  assert.match(out, /new input \(JSON\): \{"command": "echo edited by the user"\}\n/)
  assert.match(out, /\nedited by the user\n/, 'the edited command ran')
})

test('--scripted --tools calls current_time, then run_command, which asks; a denial reads "[denied by you]", with no reminder text', async () => {
  const chat = chatPiped(['--scripted', '--tools'], { NO_COLOR: '1' })
  chat.type('hello\n')
  await chat.waitFor('run_command wants to run with {"command":"echo hello from the scripted model"}', 'the approval', 20_000)
  chat.type('n\n')
  await chat.waitFor('You denied the command', 'the model reading the denial', 20_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  const out = chat.out.stdout
  assert.match(out, /→ current_time \{\}\n.*\(time zone .*\)\n\[done\]\n/)
  assert.match(out, /\[denied by you\]/)
  assert.not.match(out, /system-reminder|denied by user!/)
  assert.not.match(out, /hello from the scripted model\n\n\[exit code/, 'the command did not run')
})

test('Ctrl-C at an approval interrupts the paused reply (the call closes as interrupted) and the next message works', async () => {
  const chat = chatPiped(['--scripted', '--tools'], { NO_COLOR: '1' })
  chat.type('hello\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
  chat.child.kill('SIGINT')
  await chat.waitFor('[reply interrupted]', 'the interruption')
  assert.match(chat.out.stdout, /\^C\n\[interrupted\]\n\[reply interrupted\]\n/)
  assert.not.match(chat.out.stdout, /system-reminder|press Ctrl-C again/)
  chat.type('and now?\n')
  await chat.waitFor('> and now?', 'the next prompt')
  await chat.waitFor(/> and now\?\n(.|\n)*\[e\]dit/, 'the next reply (the demo asks again for the command it did not run)', 20_000)
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  assert.is(chat.out.stderr, '')
})

test('a tool argument with \\r and spaces cannot blank the approval line; escape sequences from the model are shown escaped', async () => {
  // \r is JSON whitespace: valid arguments that, printed raw, return the cursor and overwrite the line.
  const args = `{"command":\r${' '.repeat(60)}"rm -rf ~/important"}`
  const server = await chatServer((_, n) => (n === 0
    ? { text: `I will tidy up ${ESC}]0;evil title\u0007now ${ESC}[2J.`, call: { id: 'c1', name: 'run_command', args } }
    : { text: 'ok' }))
  const chat = chatPiped(['--tools'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url, NO_COLOR: '1' })
  chat.type('tidy up\n')
  await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval')
  chat.type('n\n')
  await chat.waitFor('ok\n', 'the end')
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  server.close()
  const out = chat.out.stdout
  assert.equal([...out.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g)].map((m) => m[0].charCodeAt(0)), [], 'no raw control character reaches the terminal')
  const approval = out.split('\n').find((l) => l.startsWith('run_command wants to run with'))!
  assert.ok(approval.includes('{"command":\\r     ') && approval.includes('"rm -rf ~/important"}'), approval)
  assert.match(out, /I will tidy up \\u001b\]0;evil title\\u0007now \\u001b\[2J\./)
})

test.run()
