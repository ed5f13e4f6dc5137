// The command line's first-day mistakes (issue 22 items 11, 19): a mistyped --session names the
// command that lists a store's sessions; `serve` with a too-short token fails before it creates
// the sessions directory; `agentlog sessions` lists newest first, with what a fork came from.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runMain } from './helpers/main.js'
import { createHub, fork, say, scriptedModel } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { serveProcess } from '../helpers/serveProcess.js'

const test = suite('cli/firstDay')
let dir = ''

const run = runMain

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentlog-first-day-'))
  const store = directoryStore(join(dir, 'sessions'))
  const hub = createHub({ store, agent: () => ({ name: 'a', model: scriptedModel([[...say('hi')]], { onExhausted: 'repeat-last' }) }) })
  await hub.create({ session_id: 'older' })
  await hub.session('older').reply('hello')
  await new Promise((r) => setTimeout(r, 15))
  await hub.create({ session_id: 'newer' })
  await new Promise((r) => setTimeout(r, 15))
  const copy = await store.create({ metadata: { forked_from: 'older', from_seq: 2 } }) // as the page's Fork does
  const agent = fork(await store.read('older'), 2, { name: 'a', model: scriptedModel([]), log: await store.open(copy.session_id), session_id: copy.session_id })
  await agent.close()
  await hub.close() // closes the store too
})
test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a mistyped --session says which command lists the sessions', async () => {
  const store = join(dir, 'sessions')
  const { code, err } = await run('replay', store, '--session', 'oldr')
  assert.is(code, 1)
  assert.match(err, `has no session oldr: agentlog sessions ${store} lists the sessions it has.`)
})

test('agentlog sessions lists newest first with titles, and says what a fork was forked from', async () => {
  const { code, out } = await run('sessions', join(dir, 'sessions'))
  assert.is(code, 0)
  const ids = out.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[0])
  assert.is(ids.length, 3)
  assert.equal(ids.slice(1), ['newer', 'older'])
  assert.match(out.split('\n')[1], 'forked from older at event #2')
  assert.match(out.split('\n')[3], /older .* "hello"$/, 'the title: the first user message')
})

test('serve with a too-short token fails with one line and creates nothing', async () => {
  const sessions = join(dir, 'never-made')
  const server = serveProcess(['--scripted', '--store', sessions, '--token', 'short'])
  assert.is(await server.exited, 2)
  assert.match(server.out.stderr, 'at least 8 characters')
  assert.is(server.out.stderr.trim().split('\n')[0].startsWith('agentlog serve:'), true)
  assert.not.ok(existsSync(sessions), 'no sessions directory was made')
})

test.run()
