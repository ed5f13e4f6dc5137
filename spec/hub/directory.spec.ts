import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { firstValueFrom, filter, timeout } from 'rxjs'
import * as assert from 'uvu/assert'
import { counterClock, createEvent, createHub, UserMsg, type AgentEvent } from '../../lib/index.js'
import { directoryStore } from '../../lib/node.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { tempDir } from '../log/helpers/files.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { hubContract } from './hubContract.js'

let dir = ''
const test = hubContract('directory', async () => directoryStore((dir = tempDir())), {
  // A session the hub closed holds no lease: a second store on the same directory can open it.
  async reopen(_store, session_id) {
    const other = directoryStore(dir)
    const log = await other.open(session_id)
    await log.close()
    await other.close()
  },
  async remains(_store, session_id) {
    return fs.readdirSync(dir).filter((f) => f.startsWith(`${session_id}.`)).length
  },
})

// A process that died mid-reply leaves its lock (naming a dead pid) and a log ending inside the
// reply; a live hub's sweep takes the lock over and closes the reply, with no command sent.
test('a reply whose writer died is closed by a live hub: followers and list() see it end', async () => {
  const crashed = directoryStore((dir = tempDir()))
  await crashed.create({ session_id: 's1' })
  const log = await crashed.open('s1')
  const clock = counterClock('cut')
  const cut: AgentEvent[] = [
    createEvent(clock, 'USER_MESSAGE', { msg: UserMsg({ content: 'cut me' }, clock), metadata: { seq: 1 } }),
    createEvent(clock, 'REPLY_START', { session_id: 's1', reply_id: 'r-cut', name: 'Friday', role: 'assistant', metadata: { seq: 2 } }),
    createEvent(clock, 'MODEL_CALL_START', { reply_id: 'r-cut', model_name: 'm', metadata: { seq: 3 } }),
  ]
  log.append(cut, { expectedSeq: 0 })
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!
  fs.writeFileSync(path.join(dir, 's1.jsonl.lock'), JSON.stringify({ pid: dead, host: os.hostname(), time: new Date().toISOString() }))
  await log.close() // the lock names the dead process now, so it stays behind as a crash leaves it

  const store = directoryStore(dir)
  const hub = createHub({ store, agent: sessionAgent(1), sweepMs: 20 })
  try {
    assert.is((await hub.list()).items[0].status, 'running')
    const end = await firstValueFrom(hub.session('s1').follow().pipe(filter((e) => e.type === 'REPLY_END'), timeout({ first: 30_000 })))
    assert.is(end.type === 'REPLY_END' && `${end.reply_id}:${end.finished_reason}`, 'r-cut:interrupted')
    for (let i = 0; i < 200 && (await hub.list()).items[0].status !== 'idle'; i++) await new Promise((r) => setTimeout(r, 10))
    assert.is((await hub.list()).items[0].status, 'idle')
    assert.equal(checkLog(await store.read('s1')).violations, [])
  } finally {
    await hub.close()
  }
})

test.run()
