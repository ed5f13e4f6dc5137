// Misbehaving parts (issue 9): generated models that send bad chunk shapes, interleave and reuse
// tool call ids and throw odd values; tools whose schemas and permission functions throw or answer
// nonsense and whose bodies return or throw odd values; stores whose append throws at a random
// point; with interrupts at random moments. Invariants: no reply hangs, nothing escapes as an
// uncaught exception, every failure reaches the caller as a coded or model error, the log passes
// checkLog and strict replay, and replay(log) deep-equals the state; a broken store leaves the
// state at the log's last event, and reopening its log (in memory, and a real file) gives a
// consistent, idle agent.
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { suite } from 'uvu'
import { AbortError, AgentError, checkLog, counterClock, createAgent, memoryLog, ModelError, replay, UserMsg, type Agent, type LogStore } from '../../lib/index.js'
import { fileLog, readLogFile } from '../../lib/node.js'
import { propertiesOf } from './helpers/config.js'
import { buildMisbehavingTool, failingStore, makeThrown, misbehavingModel, modelTurnArb, oddThrowArb, toolPlanArb } from './helpers/misbehaving.js'

const test = suite('properties/misbehaving')
const property = propertiesOf(test)

const fail = (what: string): never => {
  throw new Error(what)
}

const HANG_MS = 3000
const settles = <T>(promise: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} hangs`)), HANG_MS)))
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer))
}

const checkHolds = (agent: Agent, label: string) => {
  const log = JSON.parse(JSON.stringify(agent.log))
  const { violations } = checkLog(log)
  if (violations.length) fail(`${label}: checkLog: ${violations.map((v) => `#${v.seq} ${v.message}`).join('; ')}`)
  let replayed
  try {
    replayed = replay(log, undefined, { strict: true })
  } catch (error) {
    fail(`${label}: strict replay refused the log: ${(error as Error).message}`)
  }
  if (!isDeepStrictEqual(replayed, agent.state)) fail(`${label}: replay(log) differs from the state`)
}

const caseArb = fc.record({
  turns: fc.array(modelTurnArb, { minLength: 1, maxLength: 5 }),
  tools: fc.array(toolPlanArb, { minLength: 3, maxLength: 3 }),
  replies: fc.integer({ min: 1, max: 3 }),
  /** Stop the reply after this many of its events (null: never). */
  interruptAfter: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
  /** The append call that throws (null: the store never fails). */
  storeFailsAt: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null, freq: 2 }),
  storeThrows: oddThrowArb,
})

property('misbehaving models, tools and stores never hang, crash or break the log', 60, async (params) => {
  await fc.assert(fc.asyncProperty(caseArb, async (c) => {
    const crashes: unknown[] = []
    const record = (error: unknown) => void crashes.push(error)
    process.on('uncaughtException', record)
    process.on('unhandledRejection', record)
    const log = failingStore(c.storeFailsAt, c.storeThrows)
    let agent: Agent | null = null
    try {
      agent = createAgent({ name: 'P', model: misbehavingModel(c.turns), tools: c.tools.map(buildMisbehavingTool), log, clock: counterClock('p'), maxIters: 4 })
      for (let r = 0; r < c.replies; r++) {
        const controller = new AbortController()
        let seen = 0
        const run = (async () => {
          for await (const _ of agent!.replyStream(UserMsg({ content: `go ${r}` }), { signal: controller.signal })) {
            if (++seen === c.interruptAfter) controller.abort()
          }
        })()
        const outcome = await settles(run.then(() => null, (error: unknown) => error), `reply ${r}`)
        if (outcome !== null && !(outcome instanceof AgentError || outcome instanceof ModelError || outcome instanceof AbortError))
          fail(`reply ${r} failed with something that is not a coded error: ${String(outcome)}`)
        if (agent.state.status === 'paused') await settles(agent.interrupt(), 'interrupt of a paused reply')
        if (log.failed) break
        checkHolds(agent, `after reply ${r}`)
        if (agent.state.status !== 'idle') fail(`after reply ${r} the agent is ${agent.state.status}`)
      }
      if (log.failed) {
        if (agent.state.seq !== log.events.length) fail(`the state is at seq ${agent.state.seq} but the log holds ${log.events.length}`)
        if (!isDeepStrictEqual(replay(log.events), agent.state)) fail('replay(log) differs from the state of the broken agent')
        const refused = await agent.reply(UserMsg({ content: 'more' })).then(() => null, (error: unknown) => error)
        if (!(refused instanceof AgentError)) fail('a broken agent accepted more work')
        const reopened = createAgent({ name: 'P', model: misbehavingModel([]), log: memoryLog(log.events), clock: counterClock('q') })
        checkHolds(reopened, 'reopened after the store failed')
        if (reopened.state.status === 'running') fail('the reopened agent is running')
      }
      await new Promise((resolve) => setTimeout(resolve, 0))
      if (crashes.length) fail(`uncaught: ${crashes.map((e) => (e instanceof Error ? e.stack : typeof e)).join('\n')}`)
    } finally {
      process.off('uncaughtException', record)
      process.off('unhandledRejection', record)
      await agent?.close().catch(() => undefined)
    }
  }), params)
})

const fileCaseArb = fc.record({
  turns: fc.array(modelTurnArb, { minLength: 1, maxLength: 4 }),
  tools: fc.array(toolPlanArb, { minLength: 3, maxLength: 3 }),
  failAt: fc.integer({ min: 1, max: 40 }),
  thrown: oddThrowArb,
})

property('a file log whose append throws at a random point: the agent stops coded, and reopening the file recovers', 15, async (params) => {
  await fc.assert(fc.asyncProperty(fileCaseArb, async (c) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentlog-prop-'))
    const path = join(dir, 'session.jsonl')
    const file = fileLog(path, { durability: 'none' })
    let appends = 0
    const log: LogStore = {
      ...file, get events() { return file.events }, snapshot: () => file.snapshot(), close: () => file.close(),
      append(batch, options) {
        if (++appends >= c.failAt) throw makeThrown(c.thrown)
        file.append(batch, options)
      },
    }
    const agent = createAgent({ name: 'P', model: misbehavingModel(c.turns), tools: c.tools.map(buildMisbehavingTool), log, clock: counterClock('p'), maxIters: 4 })
    const outcome = await settles(agent.reply(UserMsg({ content: 'go' })).then(() => null, (error: unknown) => error), 'the reply')
    if (outcome !== null && !(outcome instanceof AgentError || outcome instanceof ModelError)) fail(`the reply failed with something that is not a coded error: ${String(outcome)}`)
    if (agent.failure) {
      if (agent.state.seq !== readLogFile(path).events.length) fail('the state ran ahead of the file')
    } else checkHolds(agent, 'the agent that never hit the failure')
    await agent.close()
    const reopened = createAgent({ name: 'P', model: misbehavingModel([]), log: fileLog(path, { durability: 'none' }), clock: counterClock('q') })
    try {
      checkHolds(reopened, 'reopened')
      if (reopened.state.status === 'running') fail('the reopened agent is running')
    } finally {
      await reopened.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }), params)
})

test.run()
