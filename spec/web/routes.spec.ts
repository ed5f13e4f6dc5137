// The page's server side without a browser: webPage() answers only its own files (with a content
// security policy) and says when the page is not built; the page routes of createServer (a
// session's tools, fork) refuse bad input with coded errors and leave the forked session as it was.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer, memoryStore, type AgentState } from '../../lib/index.js'
import { listen, webPage } from '../../lib/node.js'
import { playbookAgent } from './helpers/playbook.js'

const test = suite('web/routes')

test('webPage serves index.html, app.js and app.css from its directory and nothing else', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlog-page-'))
  try {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>')
    writeFileSync(join(dir, 'app.js'), 'export {}')
    const page = webPage({ dir })
    const index = await page(new Request('http://x/'))
    assert.is(index?.status, 200)
    assert.is(index?.headers.get('content-type'), 'text/html; charset=utf-8')
    assert.match(index?.headers.get('content-security-policy') ?? '', "default-src 'self'")
    assert.is(await index?.text(), '<!doctype html><title>t</title>')
    assert.is((await page(new Request('http://x/app.js')))?.headers.get('content-type'), 'text/javascript; charset=utf-8')
    assert.is(await (await page(new Request('http://x/app.js', { method: 'HEAD' })))?.text(), '')
    for (const other of ['http://x/sessions', 'http://x/../package.json', 'http://x/%2e%2e/package.json', 'http://x/app.ts'])
      assert.is(await page(new Request(other)), null, other)
    assert.is(await page(new Request('http://x/', { method: 'POST', body: '{}' })), null)
    const missing = await page(new Request('http://x/app.css'))
    assert.is(missing?.status, 503)
    assert.match(await missing!.text(), 'npm run build:web')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('fork and tools refuse an unknown session (404) and a bad seq (400); a fork leaves the original as it was', async () => {
  const store = memoryStore()
  const hub = createHub({ store, agent: () => playbookAgent() })
  const served = await listen(createServer({ hub, page: { store, agent: () => playbookAgent() } }), { port: 0 })
  const bare = await listen(createServer({ hub }), { port: 0 })
  const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  try {
    const { session_id } = (await (await post(`${served.url}/sessions`, {})).json()) as { session_id: string }
    await hub.session(session_id).reply('hello')
    const before = (await (await fetch(`${served.url}/sessions/${session_id}`)).json()) as AgentState
    const tools = (await (await fetch(`${served.url}/sessions/${session_id}/tools`)).json()) as { tools: { name: string; input_schema: { type: string }; external: boolean }[] }
    assert.equal(tools.tools.map((t) => [t.name, t.external, t.input_schema.type]), [
      ['slow_search', false, 'object'], ['send_email', false, 'object'], ['pick_color', true, 'object'], ['draw', false, 'object'], ['research', false, 'object'], ['ask_user', true, 'object'],
    ])
    for (const seq of [-1, 1.5, before.seq + 1, '3', null]) {
      const refused = await post(`${served.url}/sessions/${session_id}/fork`, { seq })
      assert.is(refused.status, 400, String(seq))
      assert.is(((await refused.json()) as { code: string }).code, 'INVALID_INPUT')
    }
    const unknown = await post(`${served.url}/sessions/nope/fork`, { seq: 0 })
    assert.is(unknown.status, 404)
    assert.is((await hub.list()).items.length, 1, 'refused forks make no session')
    const made = await post(`${served.url}/sessions/${session_id}/fork`, { seq: 3 })
    assert.is(made.status, 201)
    const { session_id: fork } = (await made.json()) as { session_id: string }
    const forked = (await (await fetch(`${served.url}/sessions/${fork}`)).json()) as AgentState
    assert.is(forked.status, 'idle', 'a reply cut by the fork point is closed')
    assert.equal(forked.context.map((m) => m.role), ['user'], 'cut before the model produced anything: no message, as AgentScope')
    assert.equal((await (await fetch(`${served.url}/sessions/${session_id}`)).json()) as AgentState, before)
    const noPage = await fetch(`${bare.url}/sessions/${session_id}/tools`)
    assert.is(noPage.status, 404)
    assert.is(((await noPage.json()) as { code: string }).code, 'NO_ROUTE')
  } finally {
    await bare.close()
    await served.close()
    await hub.close()
  }
})

test.run()
