// Interrupt at every point: a scripted reply with text, two tool calls and a second model call is
// cancelled after its k-th event, for every k, by each way of stopping a reply (an aborted signal,
// leaving the for-await loop, unsubscribing from reply$, agent.interrupt()). After each: the
// invariants hold, no tool started after the cancel, and a next reply completes.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sleep } from '../../lib/core/abort.js'
import { UserMsg, type Agent, type OutputEvent } from '../../lib/index.js'
import { checkInvariants, collect, makeAgent, probe, slowTool, twoToolScript, type ToolProbe } from '../helpers/fixtures.js'

const test = suite('scenarios/interrupt-everywhere')

type Form = 'signal' | 'break' | 'unsubscribe' | 'interrupt'

/** Runs the reply and cancels it right after its k-th event; returns the events the caller saw. */
const cancelAfter = async (agent: Agent, k: number, form: Form, onCancel: () => void): Promise<OutputEvent[]> => {
  const seen: OutputEvent[] = []
  const input = UserMsg({ content: 'go' })
  if (form === 'unsubscribe') {
    await new Promise<void>((resolve) => {
      let cancelled = false
      let subscription: { unsubscribe(): void } | undefined = undefined
      subscription = agent.reply$(input).subscribe({
        next: (event) => {
          seen.push(event)
          if (seen.length !== k) return
          onCancel()
          cancelled = true
          subscription?.unsubscribe()
          resolve()
        },
        complete: () => resolve(),
      })
      if (cancelled) subscription!.unsubscribe()
    })
    return seen
  }
  const controller = new AbortController()
  for await (const event of agent.replyStream(input, { signal: controller.signal })) {
    seen.push(event)
    if (seen.length !== k) continue
    onCancel()
    if (form === 'break') break
    if (form === 'signal') controller.abort()
    if (form === 'interrupt') await agent.interrupt()
  }
  return seen
}

const uninterrupted = async () => {
  const { agent } = makeAgent(twoToolScript(), [slowTool(probe(), { ms: 2 })])
  return collect(agent.replyStream(UserMsg({ content: 'go' })))
}

for (const form of ['signal', 'break', 'unsubscribe', 'interrupt'] as Form[]) {
  test(`a cancel by ${form} after every event leaves a consistent, resumable agent`, async () => {
    const total = (await uninterrupted()).length
    assert.ok(total > 25, 'the scripted reply has many cancel points')
    let interrupted = 0
    for (let k = 1; k < total; k++) {
      const p: ToolProbe = probe()
      const { agent } = makeAgent(twoToolScript(), [slowTool(p, { ms: 2 })], { modelOptions: { chunkDelayMs: 1 } })
      let startedAtCancel = -1
      let runningAtCancel = false
      const seen = await cancelAfter(agent, k, form, () => {
        startedAtCancel = p.started.length
        runningAtCancel = agent.state.status === 'running'
      })
      const where = `${form} after event ${k} (${seen[k - 1]?.type})`
      const last = agent.log[agent.log.length - 1]
      assert.is(last.type, 'REPLY_END', `${where}: the log ends with REPLY_END once the loop is over`)
      assert.is(last.type === 'REPLY_END' && last.finished_reason, runningAtCancel ? 'interrupted' : 'completed', where)
      if (runningAtCancel) interrupted++
      if (form !== 'break' && form !== 'unsubscribe') assert.is(seen[seen.length - 1].type, 'REPLY_END', `${where}: the caller saw the end`)
      checkInvariants(agent)
      await sleep(5)
      assert.is(p.started.length, startedAtCancel, `${where}: no tool started after the cancel`)
      const next = await agent.reply(UserMsg({ content: 'and now?' }))
      assert.is(next.finished_reason, 'completed', `${where}: the next reply completes`)
      checkInvariants(agent)
    }
    assert.ok(interrupted >= total - 3, `almost every cancel point found the reply running (${interrupted} of ${total - 1})`)
  })
}

test('an interrupted reply() resolves to the interruption message, which is not added to the context', async () => {
  const { agent } = makeAgent(twoToolScript(), [slowTool(probe(), { ms: 50 })], { interruptText: 'Stopped.' })
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 10)
  const msg = await agent.reply(UserMsg({ content: 'go' }), { signal: controller.signal })
  assert.is(msg.finished_reason, 'interrupted')
  assert.is(msg.id, agent.state.reply_id!)
  assert.equal(msg.content.map((b) => b.type === 'text' && b.text), ['Stopped.'])
  assert.ok(!agent.state.context.some((m) => m.content.some((b) => b.type === 'text' && b.text === 'Stopped.')))
})

test('with rejectOnInterrupt, an interrupted reply() rejects with an AbortError after the cleanup', async () => {
  const { agent } = makeAgent(twoToolScript(), [slowTool(probe(), { ms: 50 })])
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 10)
  try {
    await agent.reply(UserMsg({ content: 'go' }), { signal: controller.signal, rejectOnInterrupt: true })
    assert.unreachable('should reject')
  } catch (error) {
    assert.is((error as Error).name, 'AbortError')
    assert.is(agent.state.status, 'idle')
    checkInvariants(agent)
  }
})

test.run()
