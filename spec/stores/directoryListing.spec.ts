// Listing a directory store reads a small summary per session, never a whole log: the summary its
// writer keeps, plus the log's bytes after it (so a writer that died before saving one is still
// listed right). A damaged session is listed as `damaged` with its error's code, beside the others,
// by the store, the hub and GET /sessions.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAgent, createHub, createServer, UserMsg, type SessionStore } from '../../lib/index.js'
import { directoryStore, fileLog } from '../../lib/node.js'
import { tempDir } from '../log/helpers/files.js'
import { sessionAgent, sessionModel, sessionTools } from '../helpers/sessionModel.js'

const test = suite('stores/directory-listing')
let dir: string
let store: SessionStore
test.before.each(() => {
  dir = tempDir()
  store = directoryStore(dir)
})
test.after.each(async () => {
  await store.close()
})

/** The listed sessions by id (these specs are about what is listed, not the order). */
const byId = <T extends { session_id: string }>(items: T[]) => [...items].sort((x, y) => x.session_id.localeCompare(y.session_id))

/** Sessions with a reply each; the first one then paused on a confirmation unless `pause` is false. */
const withSessions = async (ids: string[], pause = true) => {
  const hub = createHub({ store, agent: sessionAgent(1) })
  for (const id of ids) {
    await hub.create({ session_id: id })
    await hub.session(id).reply('hello')
  }
  if (pause) await hub.session(ids[0]).reply('ask /tmp/a')
  return hub
}

test('listing a session does not read the log the summary covers: a line in its middle can be anything', async () => {
  const hub = await withSessions(['a', 'b'])
  await hub.close()
  store = directoryStore(dir)
  const before = byId((await store.list()).items)
  assert.equal(before.map((s) => [s.session_id, s.status, s.last_seq]), [['a', 'paused', before[0].last_seq], ['b', 'idle', before[1].last_seq]])
  const file = path.join(dir, 'a.jsonl')
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  lines[3] = `{${'x'.repeat(lines[3].length - 2)}}` // same length: only a reader of the whole log notices
  fs.writeFileSync(file, lines.join('\n'))
  const summary = ({ session_id, status, last_seq }: { session_id: string; status: string; last_seq: number }) => [session_id, status, last_seq]
  assert.equal(byId((await store.list()).items).map(summary), before.map(summary))
})

test('a writer that died before saving a summary: the log after the summary is read, status and last_seq are right', async () => {
  const hub = await withSessions(['a'], false)
  await hub.close()
  // Another writer appends a whole reply and is gone without saving a summary.
  const log = fileLog(path.join(dir, 'a.jsonl'))
  const agent = createAgent({ name: 'Friday', model: sessionModel(1), tools: sessionTools(), log, session_id: 'a' })
  await agent.reply(UserMsg({ content: 'again' }))
  await agent.reply(UserMsg({ content: 'ask /tmp/b' }))
  const seq = agent.state.seq
  await agent.close()
  store = directoryStore(dir)
  const [info] = (await store.list()).items
  assert.equal([info.status, info.last_seq], ['paused', seq])
  fs.rmSync(path.join(dir, 'a.jsonl.summary'))
  const [again] = (await store.list()).items
  assert.equal([again.status, again.last_seq], ['paused', seq], 'no summary: the whole log is read once')
})

test('one damaged session is listed as damaged with a code; the others are listed (store, hub, GET /sessions)', async () => {
  const hub = await withSessions(['a', 'b', 'c'])
  await hub.close()
  fs.writeFileSync(path.join(dir, 'b.jsonl.summary'), 'not json')
  fs.appendFileSync(path.join(dir, 'b.jsonl'), 'this is not an event\n')
  fs.writeFileSync(path.join(dir, 'c.session.json'), '{"created_at":')
  store = directoryStore(dir)
  const { items } = await store.list()
  assert.equal(byId(items).map((s) => [s.session_id, s.status, s.damage?.code]), [['a', 'paused', undefined], ['b', 'damaged', 'INVALID_LOG'], ['c', 'damaged', 'INVALID_LOG']])
  assert.is(items[2].session_id, 'c', 'one whose start time cannot be read is listed last')
  const served = createHub({ store, agent: sessionAgent(1) })
  assert.equal(byId((await served.list()).items).map((s) => s.status), ['paused', 'damaged', 'damaged'])
  const response = await createServer({ hub: served })(new Request('http://127.0.0.1/sessions'))
  assert.is(response.status, 200)
  const page = (await response.json()) as { items: { session_id: string; status: string; damage?: { code: string } }[] }
  assert.equal(byId(page.items).map((s) => [s.session_id, s.status, s.damage?.code]), [['a', 'paused', undefined], ['b', 'damaged', 'INVALID_LOG'], ['c', 'damaged', 'INVALID_LOG']])
  await served.close()
})

test.run()
