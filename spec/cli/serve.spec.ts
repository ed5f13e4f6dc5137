// `agentlog serve` as a real child process on 127.0.0.1: the scripted agent answers over HTTP and
// its sessions land in the --store directory; an --agent module is loaded; a public host without a
// token is refused; the token is never printed, and an empty one is an error; without a token only
// loopback Host names and --allow-host ones are served; SIGTERM stops it with exit code 0.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readSse } from '../../lib/client/sse.js'
import { serveProcess } from '../helpers/serveProcess.js'
import { httpRequest } from '../server/helpers.js'

const test = suite('cli/serve')
const lib = fileURLToPath(new URL('../../lib/index.ts', import.meta.url))

const serve = serveProcess

const replyText = async (url: string, session: string, input: string) => {
  const response = await fetch(`${url}/sessions/${session}/replies`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer serve-spec-token' }, body: JSON.stringify({ input }) })
  let text = ''
  for await (const message of readSse(response)) {
    const event = message.data as { type: string; delta?: string }
    if (event.type === 'TEXT_BLOCK_DELTA') text += event.delta
  }
  return text
}

test('--scripted serves the demo agent; sessions are stored in --store; SIGTERM exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-serve-'))
  const server = serve(['--scripted', '--store', dir, '--token', 'serve-spec-token'])
  try {
    const url = await server.url
    assert.not.ok(server.out.stdout.includes('serve-spec-token'), 'the token is never printed')
    assert.is((await fetch(`${url}/sessions`)).status, 401)
    const created = await fetch(`${url}/sessions`, { method: 'POST', headers: { authorization: 'Bearer serve-spec-token' } })
    const { session_id } = (await created.json()) as { session_id: string }
    assert.match(await replyText(url, session_id, 'hi'), 'scripted model')
    assert.ok(readdirSync(dir).some((name) => name.includes(session_id)), 'the session is in the store directory')
  } finally {
    server.child.kill('SIGTERM')
    assert.is(await server.exited, 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

test('--agent loads a module exporting a function of the session id', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-serve-'))
  const module = join(dir, 'agent.mts')
  writeFileSync(module, `import { scriptedModel, say } from ${JSON.stringify(lib)}\nexport default (session_id: string) => ({ name: 'custom', model: scriptedModel([[...say('Session ' + session_id + ' here.')]], { onExhausted: 'repeat-last' }) })\n`)
  const server = serve(['--agent', module, '--store', join(dir, 'sessions'), '--token', 'serve-spec-token'])
  try {
    const url = await server.url
    const created = await fetch(`${url}/sessions`, { method: 'POST', headers: { authorization: 'Bearer serve-spec-token', 'content-type': 'application/json' }, body: JSON.stringify({ session_id: 'mine' }) })
    assert.is(created.status, 201)
    assert.is(await replyText(url, 'mine', 'hi'), 'Session mine here.')
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a public host without a token is refused; a missing agent is a usage error', async () => {
  const open = serve(['--scripted', '--host', '0.0.0.0'])
  assert.is(await open.exited, 1)
  assert.match(open.out.stderr, 'token')
  const none = serve([])
  assert.is(await none.exited, 2)
  assert.match(none.out.stderr, '--agent')
})

test('an empty token (--token "" or AGENTLOG_TOKEN="") is a usage error, not "no token"', async () => {
  const flag = serve(['--scripted', '--token', ''])
  const env = serve(['--scripted'], { AGENTLOG_TOKEN: '' })
  try {
    // A serve that took the empty token as "no token" would listen instead of exiting.
    const outcome = (run: typeof flag) => Promise.race([run.exited.then((code) => `exit ${code}`), run.url.then(() => 'listening')])
    assert.is(await outcome(flag), 'exit 2')
    assert.match(flag.out.stderr, '--token is empty')
    assert.is(await outcome(env), 'exit 2')
    assert.match(env.out.stderr, 'AGENTLOG_TOKEN is empty')
  } finally {
    flag.child.kill('SIGTERM')
    env.child.kill('SIGTERM')
  }
})

test('without a token only loopback Host names are served; --allow-host names another', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-serve-'))
  const server = serve(['--scripted', '--store', join(dir, 'sessions'), '--allow-host', 'agents.test'])
  try {
    const url = await server.url
    const { port } = new URL(url)
    assert.is((await httpRequest(`${url}/sessions`, { headers: { host: `agents.test:${port}` } })).status, 200)
    assert.is((await httpRequest(`${url}/sessions`, { headers: { host: `localhost:${port}` } })).status, 200)
    assert.is((await httpRequest(`${url}/sessions`, { headers: { host: `rebound.example:${port}` } })).status, 403)
  } finally {
    assert.is(await server.stop(), 0)
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
