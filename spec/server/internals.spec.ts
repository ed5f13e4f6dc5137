// What a client is never told: the store's absolute file paths, a lock holder's host and pid. A
// damaged session listed by GET /sessions and a LOG_LOCKED refusal keep their code; their full
// message goes to the server's own log only.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub, createServer } from '../../lib/index.js'
import { directoryStore, fileLog } from '../../lib/node.js'
import { publicError } from '../../lib/server/http.js'
import type { AgentError } from '../../lib/core/errors.js'
import { tempDir } from '../log/helpers/files.js'
import { sessionAgent } from '../helpers/sessionModel.js'

const test = suite('server/internals')

test('GET /sessions lists a damaged session with its code and without the store\'s path; the server\'s log hears the full message', async () => {
  const dir = tempDir()
  const hub = createHub({ store: directoryStore(dir), agent: sessionAgent(1) })
  await hub.create({ session_id: 'ok' })
  await hub.session('ok').reply('hello')
  await hub.close()
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), 'this is not an event\n')
  fs.writeFileSync(path.join(dir, 'bad.session.json'), JSON.stringify({ created_at: new Date().toISOString(), metadata: {} }))
  const served = createHub({ store: directoryStore(dir), agent: sessionAgent(1) })
  const heard: unknown[] = []
  try {
    const response = await createServer({ hub: served, log: (error) => heard.push(error) })(new Request('http://127.0.0.1/sessions'))
    assert.is(response.status, 200)
    const text = await response.text()
    const page = JSON.parse(text) as { items: { session_id: string; status: string; damage?: { code: string; message: string } }[] }
    const bad = page.items.find((s) => s.session_id === 'bad')!
    assert.is(bad.status, 'damaged')
    assert.is(bad.damage?.code, 'INVALID_LOG')
    assert.ok(bad.damage!.message.length > 0, 'the damage still says what is wrong')
    assert.not.ok(text.includes(dir), `no path of the store in the listing: ${bad.damage!.message}`)
    assert.ok(heard.some((e) => (e as AgentError).message?.includes(dir)), 'the server\'s log has the full message')
  } finally {
    await served.close()
  }
})

test('a LOG_LOCKED refusal names neither the holder\'s host and pid nor the log\'s path to a client', async () => {
  const dir = tempDir()
  const file = path.join(dir, 'locked.jsonl')
  // A writer on another machine holds the log.
  fs.writeFileSync(`${file}.lock`, `${JSON.stringify({ pid: 48213, host: 'db-worker-7', time: new Date().toISOString() })}\n`)
  let refusal: unknown
  try {
    fileLog(file)
  } catch (error) {
    refusal = error
  }
  assert.is((refusal as AgentError).code, 'LOG_LOCKED')
  assert.ok((refusal as AgentError).message.includes('db-worker-7'), 'the error itself names the holder (for the server\'s log)')
  const shown = publicError(refusal)
  assert.is(shown.code, 'LOG_LOCKED')
  assert.is(shown.status, 503)
  for (const secret of ['db-worker-7', '48213', dir, os.hostname()]) assert.not.ok(shown.message.includes(secret), `not shown: ${secret} in ${shown.message}`)
  assert.ok(shown.internal, 'the server\'s log hears the full message')
})

test.run()
