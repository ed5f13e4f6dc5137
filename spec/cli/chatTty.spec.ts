// `agentlog chat` in a real terminal (a pseudo-terminal made by util-linux `script`; keys go through
// the terminal): what the user types is echoed (issue 10 item 4), Ctrl-C while a reply streams stops
// the reply and not the program, Ctrl-C at an approval interrupts the paused reply (item 5), and
// Ctrl-C twice at the prompt, or Ctrl-D, exits with code 0.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chatInTty, hasScript, killChats } from './helpers/chat.js'

const test = suite('cli/chatTty')
test.after.each(killChats)

/** The screen text without cursor movements and carriage returns. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')

if (!hasScript) {
  test('a pseudo-terminal needs util-linux `script`', () => assert.unreachable('util-linux `script` is not installed: install it (apt-get install util-linux) to run the terminal specs'))
} else {
  test('typed text is echoed; Ctrl-C while a reply streams stops it; Ctrl-D at the prompt exits 0', async () => {
    const chat = chatInTty(['--scripted'], { NO_COLOR: '1' })
    await chat.waitFor('Ctrl-D exits', 'the banner', 20_000)
    chat.type('hello\r')
    await chat.waitFor(() => /> hello\n/.test(plain(chat.out.stdout)), 'the echo of hello')
    await chat.waitFor('without a key.', 'the first answer', 20_000)
    chat.type('tell me more\r')
    await chat.waitFor(() => plain(chat.out.stdout).includes('> tell me more\n'), 'the echo of the second question')
    await chat.waitFor('This is a long answer', 'the long answer to stream', 20_000)
    chat.type('\u0003')
    await chat.waitFor('[reply interrupted]', 'the interruption')
    assert.not.match(plain(chat.out.stdout), /stop at once, with the partial text kept in the conversation\./, 'the answer was cut')
    await chat.waitFor(() => plain(chat.out.stdout).endsWith('> '), 'the prompt again')
    chat.type('\u0004')
    assert.is(await chat.exited, 0)
  })

  test('an approval answer is echoed; Ctrl-C at the approval interrupts the paused reply; Ctrl-C twice at the prompt exits 0', async () => {
    const chat = chatInTty(['--scripted', '--tools'], { NO_COLOR: '1' })
    await chat.waitFor('Ctrl-D exits', 'the banner', 20_000)
    chat.type('hello\r')
    await chat.waitFor('[y]es / [n]o / [e]dit', 'the approval', 20_000)
    chat.type('what\r')
    await chat.waitFor(() => /\? what\n/.test(plain(chat.out.stdout)), 'the echo of the answer')
    await chat.waitFor(() => plain(chat.out.stdout).split('[y]es / [n]o / [e]dit').length === 3, 'the question again')
    chat.type('\u0003')
    await chat.waitFor('[reply interrupted]', 'the interruption')
    assert.match(plain(chat.out.stdout), /\^C\n\[interrupted\]\n\[reply interrupted\]\n/)
    await chat.waitFor(() => plain(chat.out.stdout).endsWith('> '), 'the prompt again')
    chat.type('\u0003')
    await chat.waitFor('press Ctrl-C again', 'the exit hint')
    chat.type('\u0003')
    assert.is(await chat.exited, 0)
  })
}

test.run()
