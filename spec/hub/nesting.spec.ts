// Sub-agent sessions nested under their root (issue 33 item 10), and one id format for new
// sessions: every store names a new session as the system clock names an agent's own session and
// a sub-agent's; GET /sessions gives a sub-agent's session its `parent`, which a client cannot
// set; `agentlog sessions` lists a sub-agent under its root, and `--all` lists them flat.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { agentTool, callTool, createAgent, createHub, createServer, memoryStore, say, scriptedModel, type Hub, type HubOptions, type SessionStore } from '../../lib/index.js'
import { directoryStore, listen } from '../../lib/node.js'
import { nestSessions } from '../../lib/hub/nested.js'
import { runMain } from '../cli/helpers/main.js'

const test = suite('hub/nesting')
const SYSTEM_ID = /^[A-Za-z0-9][\w-]{11}(?:0|[1-9a-z][0-9a-z]*)$/
let dir = ''
test.before(() => void (dir = mkdtempSync(join(tmpdir(), 'agentlog-nesting-'))))
test.after(() => rmSync(dir, { recursive: true, force: true }))

const agent: HubOptions['agent'] = () => ({
  name: 'Lead',
  tools: [agentTool({ name: 'research', description: 'Researches', agent: { name: 'Researcher', model: scriptedModel([say('Found it.')]) } })],
  model: scriptedModel([callTool('c1', 'research', { task: 'look' }), say('Done.')]),
})

/** A root that ran one sub-agent, and a lone session made after it: [root, child, lone]; `keep` leaves the hub open. */
const tree = async (store: SessionStore, keep?: (hub: Hub) => void): Promise<[string, string, string]> => {
  const hub = createHub({ store, agent })
  keep?.(hub)
  const { session_id: root } = await hub.create()
  await hub.session(root).reply('research it')
  const { session_id: lone } = await hub.create()
  const child = (await hub.list()).items.find((s) => s.session_id !== root && s.session_id !== lone)!.session_id
  if (!keep) await hub.close()
  return [root, child, lone]
}

test('one id format: a store\'s new session, an agent\'s own session and a sub-agent\'s session', async () => {
  for (const store of [memoryStore(), directoryStore(join(dir, 'ids'))]) {
    const [root, child, lone] = await tree(store)
    for (const id of [root, child, lone]) assert.match(id, SYSTEM_ID, `${id} has the system clock's shape`)
  }
  assert.match(createAgent({ name: 'A', model: scriptedModel([]) }).session_id, SYSTEM_ID)
})

test('nestSessions puts each sub-agent after its parent, one level deeper; an orphan and a forged circle stay listed', () => {
  const s = (session_id: string, parent?: string) => ({ session_id, metadata: parent ? { parent: { session_id: parent, reply_id: 'r', tool_call_id: 'c' } } : {} })
  const nested = nestSessions([s('new'), s('kid', 'root'), s('grandkid', 'kid'), s('root'), s('orphan', 'gone'), s('a', 'b'), s('b', 'a')])
  assert.equal(nested.map((n) => `${'  '.repeat(n.depth)}${n.info.session_id}`), ['new', 'root', '  kid', '    grandkid', 'orphan', 'a', '  b'])
  assert.is(nested.find((n) => n.info.session_id === 'orphan')!.parent!.session_id, 'gone')
})

test('GET /sessions gives a sub-agent\'s session its parent; a client cannot set metadata.parent', async () => {
  let hub!: Hub
  const [root, child] = await tree(memoryStore(), (made) => (hub = made))
  const server = await listen(createServer({ hub }), { port: 0 })
  try {
    const { items } = (await (await fetch(`${server.url}/sessions`)).json()) as { items: { session_id: string; parent?: { session_id: string; tool_call_id: string } }[] }
    const parent = items.find((s) => s.session_id === child)!.parent
    assert.is(parent?.session_id, root)
    assert.is(parent?.tool_call_id, 'c1')
    assert.is(items.find((s) => s.session_id === root)!.parent, undefined)
    const forged = await fetch(`${server.url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { parent: { session_id: root } } }) })
    assert.is(forged.status, 400)
    assert.is(((await forged.json()) as { code: string }).code, 'INVALID_INPUT')
    assert.is((await hub.list()).items.length, 3, 'nothing was created')
  } finally {
    await server.close()
    await hub.close()
  }
})

test('agentlog sessions lists a sub-agent under its root; --all lists every session flat', async () => {
  const path = join(dir, 'cli')
  const [root, child, lone] = await tree(directoryStore(path))
  const nested = await runMain('sessions', path)
  assert.is(nested.code, 0, nested.err)
  const rows = nested.lines.slice(1).map((line) => /^ {2}( *)(\S+)/.exec(line)!)
  assert.equal(rows.map((m) => [m[2], m[1].length]), [[lone, 0], [root, 0], [child, 2]])
  const flat = await runMain('sessions', path, '--all')
  const flatRows = flat.lines.slice(1)
  assert.equal(flatRows.map((line) => /^ {2}(\S+)/.exec(line)![1]).sort(), [root, child, lone].sort())
  assert.match(flatRows.find((line) => line.includes(child))!, `sub-agent of ${root}`)
})

test.run()
