// A follower of a NATS session that is deleted ends with a coded error (NOT_FOUND), and never
// delivers the events of a session created again under that id as if they continued the old one.
import { timeout, type Observable } from 'rxjs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AgentEvent } from '../../lib/index.js'
import type { NatsStore } from '../../lib/nats.js'
import { dropNames, freshStore, natsAvailable } from './helpers/server.js'

const test = suite('nats/follow-deleted')
let store: NatsStore
test.before.each(async () => {
  store = freshStore()
  await store.migrate()
})
test.after.each(async () => {
  await store.close()
})
test.after(dropNames)

const event = (i: number, text: string): AgentEvent => ({ id: `ev-${text}-${i}`, created_at: new Date().toISOString(), metadata: { seq: i }, type: 'CUSTOM', name: 'note', value: { text } } as AgentEvent)
const write = async (id: string, texts: string[]) => {
  const log = await store.open(id)
  texts.forEach((text, i) => log.append([event(i + 1, text)], { expectedSeq: i }))
  await log.flush()
  await log.close()
}
/** Everything the follow delivers until it ends, and how it ended: its error's code, 'completed', or 'timeout' if it went on for a minute. */
const outcome = (follow: Observable<AgentEvent>) => {
  const seen: string[] = []
  const ended = new Promise<string>((resolve) => {
    follow.pipe(timeout({ first: 60_000, each: 60_000 })).subscribe({
      next: (e) => seen.push(String((e as { value?: { text?: string } }).value?.text)),
      error: (error: { code?: string; name?: string }) => resolve(error.name === 'TimeoutError' ? 'timeout' : error.code ?? String(error)),
      complete: () => resolve('completed'),
    })
  })
  return { seen, ended }
}

test('a followed session deleted: the follow ends NOT_FOUND', async () => {
  await store.create({ session_id: 's1' })
  await write('s1', ['a', 'b'])
  const { seen, ended } = outcome(store.follow('s1'))
  while (seen.length < 2) await new Promise((r) => setTimeout(r, 10))
  await store.delete('s1')
  assert.is(await ended, 'NOT_FOUND')
  assert.equal(seen, ['a', 'b'])
})

test('a followed session deleted and created again: nothing of the new one is delivered, the follow ends NOT_FOUND', async () => {
  await store.create({ session_id: 's1' })
  await write('s1', ['old-1'])
  const { seen, ended } = outcome(store.follow('s1'))
  while (seen.length < 1) await new Promise((r) => setTimeout(r, 10))
  await store.delete('s1')
  await store.create({ session_id: 's1' })
  await write('s1', ['new-1', 'new-2', 'new-3'])
  assert.is(await ended, 'NOT_FOUND')
  assert.equal(seen, ['old-1'], 'the new session\'s events are not delivered as the old one\'s')
})

if (natsAvailable('spec/nats/followDeleted.spec.ts')) test.run()
