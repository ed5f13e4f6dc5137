// Many sessions in one process: a hub over a session store (memoryStore here; directoryStore(dir)
// from 'agentlog/node' keeps one JSONL file per session). Sessions open on demand and close when idle.
import { createHub, memoryStore, say, scriptedModel } from 'agentlog'

const hub = createHub({
  store: memoryStore(),
  agent: (session_id) => ({ name: 'Friday', model: scriptedModel([say(`Hello from ${session_id}.`)], { onExhausted: 'repeat-last' }) }),
  maxLive: 100,
  idleMs: 60_000,
})

await hub.create({ session_id: 'alice' })
await hub.create({ session_id: 'bob' })
for await (const event of hub.session('alice').replyStream('Hi!')) if (event.type === 'TEXT_BLOCK_DELTA') console.log('alice <-', event.delta)
const reply = await hub.session('bob').reply('Hi!')
console.log('bob <-', reply.finished_reason)
for (const s of (await hub.list()).items) console.log(s.session_id, s.status, s.last_seq)
await hub.close()
