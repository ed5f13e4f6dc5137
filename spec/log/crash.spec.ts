// Crash safety of the file log: a child process writing with durability 'always' is killed with
// SIGKILL at random moments; each time, the reopened log holds every acknowledged event, the
// invariants hold, the cut reply is closed, and a next reply completes. (Longer: npm run crash.)
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { crashMany } from './helpers/crash.js'
import { tempDir } from './helpers/files.js'

const test = suite('log/crash')

test('30 SIGKILLs at random moments lose no acknowledged event and leave a resumable log', async () => {
  const seed = Number(process.env.CRASH_SEED ?? Date.now())
  const results = await crashMany(tempDir(), 30, { seed, parallel: 5 })
  assert.is(results.length, 30)
  assert.ok(results.filter((r) => r.cutMidReply).length >= 10, `most kills land inside a running reply (seed ${seed})`)
  assert.ok(results.every((r) => r.events > 0), 'every run acknowledged events before it was killed')
})

test.run()
