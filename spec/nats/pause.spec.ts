// An owner paused past its lease (SIGSTOP: a long GC pause, a frozen VM) while a routed approval
// waits for it: the caller's process takes the session over and applies the approval; when the
// paused owner wakes with the request still buffered, it proves its lease first, finds it gone and
// drops the request. The approved tool (its runs counted in a file, outside any agent) ran once.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHub } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { checkLog } from '../../lib/core/logCheck.js'
import { sessionAgent } from '../helpers/sessionModel.js'
import { tempDir } from '../log/helpers/files.js'
import { startHubChild, type HubChild } from '../postgres/helpers/children.js'
import { dropNames, freshStore, NATS_URL, natsAvailable, newName } from './helpers/server.js'

const test = suite('nats/pause')
let store: NatsStore
let name: string
const children: HubChild[] = []
test.before.each(async () => {
  name = newName()
  store = freshStore({}, name)
  await store.migrate()
})
test.after.each(async () => {
  for (const c of children.splice(0)) {
    try {
      process.kill(c.pid, 'SIGCONT')
    } catch {
      // gone already
    }
    await c.kill()
  }
  await store.close()
})
test.after(dropNames)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const waitUntil = async (done: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (await done()) return
    await sleep(20)
  }
  assert.unreachable(`timed out waiting until ${what}`)
}

test('a paused owner that wakes with a routed approval buffered does not apply it again: the tool ran once (3 rounds)', async () => {
  const effects = path.join(tempDir(), 'effects.txt')
  fs.writeFileSync(effects, '')
  process.env.AGENTLOG_SPEC_EFFECTS = effects
  const hub = createHub({ store: freshStore({}, name), agent: sessionAgent(1) })
  try {
    for (let round = 0; round < 3; round++) {
      const id = `paused-${round}`
      await store.create({ session_id: id })
      const a = await startHubChild(name, NATS_URL)
      children.push(a)
      const asked = await a.request('reply', id, { input: `ask /tmp/${id}` }).answer
      assert.is((asked.types as string[]).at(-1), 'REQUIRE_USER_CONFIRM')
      process.kill(a.pid, 'SIGSTOP')
      // Routed to the paused owner (the request waits in its socket), then taken over once its lease ran out.
      const call = (await hub.session(id).state()).waiting_for[0]
      const caused = await hub.session(id).approve(call.id)
      assert.is(caused[0].type, 'USER_CONFIRM_RESULT')
      await waitUntil(async () => (await store.info(id)).status === 'idle', 'the approved reply completes')
      process.kill(a.pid, 'SIGCONT')
      // The woken owner reads what waited for it (the request, its lease's renewal) and settles.
      await sleep(1500)
      const runs = fs.readFileSync(effects, 'utf8').split('\n').filter((l) => l.endsWith(`/tmp/${id}`))
      assert.is(runs.length, 1, `the approved tool ran once (round ${round}): ${JSON.stringify(runs)}`)
      const events = await store.read(id)
      assert.is(events.filter((e) => e.type === 'USER_CONFIRM_RESULT').length, 1, 'the approval is recorded once')
      assert.equal(checkLog(events).violations, [])
      await a.kill()
      children.splice(children.indexOf(a), 1)
    }
  } finally {
    delete process.env.AGENTLOG_SPEC_EFFECTS
    await hub.close()
  }
})

if (natsAvailable('spec/nats/pause.spec.ts')) test.run()
