// Strict options (issue 28, item 18): every options object of the public API refuses a key it does not
// know with INVALID_OPTION, naming the key and the closest known one; HTTP bodies refuse theirs with
// INVALID_INPUT, answered 400 with the code; CLI flags with a usage error naming the closest flag.
// One row per options object, each with a typo a user makes; then the safety case: `permision: 'ask'`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  AgentError, agentTool, anthropicModel, callTool, createAgent, createHub, createServer, defineTool, memoryStore, openAIChatModel,
  remoteAgent, say, scriptedModel,
} from '../../lib/index.js'
import { directoryStore, fileLog, listen, webPage } from '../../lib/node.js'
import { postgresStore } from '../../lib/postgres.js'
import { natsStore } from '../../lib/nats.js'
import { closest, levenshtein } from '../../lib/core/strictOptions.js'
import { runMain } from '../cli/helpers/main.js'
import { post, startServer } from '../server/helpers.js'

const test = suite('core/strictOptions')

const model = () => scriptedModel([say('ok')])
const tool = { name: 't', description: 'd', input: z.object({}), execute: () => 'ok' }
const dir = mkdtempSync(join(tmpdir(), 'agentlog-strict-'))
const hubOf = () => createHub({ store: memoryStore(), agent: () => ({ name: 'a', model: model() }) })

/** Calls `run` and returns the AgentError it threw or rejected with (failing when it did not). */
const refusal = async (run: () => unknown): Promise<AgentError> => {
  try {
    await run()
  } catch (error) {
    if (error instanceof AgentError) return error
    throw error
  }
  throw new Error('expected a refusal, but the call was accepted')
}

type Row = [where: string, run: () => unknown, key: string, suggestion: string | null]
const rows: Row[] = [
  ['createAgent', () => createAgent({ name: 'a', model: model(), maxIter: 3 } as never), 'maxIter', 'maxIters'],
  ['createAgent', () => createAgent({ name: 'a', model: model(), sysprompt: 'x' } as never), 'sysprompt', 'sysPrompt'],
  ['createAgent compaction', () => createAgent({ name: 'a', model: model(), compaction: { maxContextToken: 10 } } as never), 'maxContextToken', 'maxContextTokens'],
  ['createAgent runtimeHints', () => createAgent({ name: 'a', model: model(), runtimeHints: { timezone: 'UTC' } } as never), 'timezone', 'timeZone'],
  ['defineTool', () => defineTool({ ...tool, concurencySafe: true } as never), 'concurencySafe', 'concurrencySafe'],
  ['agentTool', () => agentTool({ name: 'sub', description: 'd', agent: { name: 's', model: model() }, maxDept: 2 } as never), 'maxDept', 'maxDepth'],
  ['reply options', () => createAgent({ name: 'a', model: model() }).reply('hi', { signall: new AbortController().signal } as never), 'signall', 'signal'],
  ['reply options', () => createAgent({ name: 'a', model: model() }).reply('hi', { rejectOnInterupt: true } as never), 'rejectOnInterupt', 'rejectOnInterrupt'],
  ['replyStream options', async () => {
    for await (const _ of createAgent({ name: 'a', model: model() }).replyStream('hi', { descendents: true } as never)) void _
  }, 'descendents', 'descendants'],
  ['approve options', async () => {
    const agent = createAgent({ name: 'a', model: scriptedModel([callTool('c1', 't', {}), say('ok')]), tools: [defineTool({ ...tool, permission: 'ask' })] })
    const paused = await agent.reply('go')
    return agent.approve(paused.waiting_for[0]!, { inptu: {} } as never)
  }, 'inptu', 'input'],
  ['createHub', () => createHub({ store: memoryStore(), agent: () => ({ name: 'a', model: model() }), idleMS: 5 } as never), 'idleMS', 'idleMs'],
  ['hub.create', () => hubOf().create({ sesion_id: 'x' } as never), 'sesion_id', 'session_id'],
  ['memoryStore', () => memoryStore({ durable: true } as never), 'durable', null],
  ['directoryStore', () => directoryStore(dir, { logs: {} } as never), 'logs', 'log'],
  ['directoryStore log', () => directoryStore(dir, { log: { durabilty: 'always' } } as never), 'durabilty', 'durability'],
  ['fileLog', () => fileLog(join(dir, 'x.jsonl'), { snapshot: true } as never), 'snapshot', 'snapshots'],
  ['postgresStore', () => postgresStore({ connectionString: 'postgres://u@127.0.0.1:1/db', shema: 'x' } as never), 'shema', 'schema'],
  ['natsStore', () => natsStore({ servers: 'nats://127.0.0.1:1', leaseMS: 3000 } as never), 'leaseMS', 'leaseMs'],
  ['createServer', () => createServer({ hub: hubOf(), tokn: 'secret-token' } as never), 'tokn', 'token'],
  ['createServer limits', () => createServer({ hub: hubOf(), limits: { bodyByte: 10 } } as never), 'bodyByte', 'bodyBytes'],
  ['listen', () => listen(createServer({ hub: hubOf() }), { prot: 0 } as never), 'prot', 'port'],
  ['webPage', () => webPage({ remoteImage: true } as never), 'remoteImage', 'remoteImages'],
  ['remoteAgent', () => remoteAgent({ url: 'http://127.0.0.1:1', session: 's', fetchh: fetch } as never), 'fetchh', 'fetch'],
  ['remote reply options', () => remoteAgent({ url: 'http://127.0.0.1:1', session: 's' }).reply('hi', { signall: new AbortController().signal } as never), 'signall', 'signal'],
  ['scriptedModel', () => scriptedModel([], { chunkDelay: 5 } as never), 'chunkDelay', 'chunkDelayMs'],
  ['openAIChatModel', () => openAIChatModel({ model: 'm', apikey: 'k' } as never), 'apikey', 'apiKey'],
  ['anthropicModel', () => anthropicModel({ model: 'm', maxTokens: 10, maxRetry: 1 } as never), 'maxRetry', 'maxRetries'],
]

for (const [where, run, key, suggestion] of rows) {
  test(`${where} refuses the unknown key \`${key}\` with INVALID_OPTION${suggestion ? `, suggesting \`${suggestion}\`` : ''}`, async () => {
    const error = await refusal(run)
    assert.is(error.code, 'INVALID_OPTION')
    assert.ok(error.message.includes(`\`${key}\``), error.message)
    if (suggestion) assert.ok(error.message.includes(`Did you mean \`${suggestion}\`?`), error.message)
    else assert.not.ok(error.message.includes('Did you mean'), error.message)
    assert.equal(error.data, { key, suggestion })
  })
}

test('defineTool({ permision: \'ask\' }) is refused: a misspelt permission never runs the tool unasked', async () => {
  let ran = 0
  const error = await refusal(() => defineTool({ ...tool, execute: () => String(++ran), permision: 'ask' } as never))
  assert.is(error.code, 'INVALID_OPTION')
  assert.ok(error.message.includes('`permision`') && error.message.includes('Did you mean `permission`?'), error.message)
  assert.is(ran, 0)
})

test('known keys, also set to undefined, are accepted; an unknown key set to undefined is still a typo', async () => {
  createAgent({ name: 'a', model: model(), sysPrompt: undefined, maxIters: undefined })
  defineTool({ ...tool, permission: undefined })
  const error = await refusal(() => createAgent({ name: 'a', model: model(), maxIter: undefined } as never))
  assert.is(error.code, 'INVALID_OPTION')
})

test('closest: the nearest known key by Levenshtein distance, or none when nothing is near', () => {
  assert.is(levenshtein('permision', 'permission'), 1)
  assert.is(levenshtein('', 'abc'), 3)
  assert.is(closest('permision', ['name', 'permission', 'external']), 'permission')
  assert.is(closest('IDLEms', ['idleMs', 'maxLive']), 'idleMs')
  assert.is(closest('zzzzzz', ['name', 'permission']), null)
})

test('HTTP bodies refuse unknown fields with 400 INVALID_INPUT naming the closest; { "sesion_id" } creates no session', async () => {
  const server = await startServer(() => ({ name: 'a', model: model() }))
  try {
    const answers: [string, unknown, string, string][] = [
      ['/sessions', { sesion_id: 'mine' }, 'sesion_id', 'session_id'],
      ['/sessions/s1/replies', { inptu: 'hi' }, 'inptu', 'input'],
      ['/sessions/s1/input', { aprove: 'c1' }, 'aprove', 'approve'],
      ['/sessions/s1/input', { approve: { tool_call_id: 'c1', inputs: {} } }, 'inputs', 'input'],
      ['/sessions/s1/input', { deny: { tool_call_id: 'c1', reasn: 'no' } }, 'reasn', 'reason'],
      ['/sessions/s1/input', { submit: { tool_call_id: 'c1', reslt: 'x' } }, 'reslt', 'result'],
    ]
    await post(`${server.url}/sessions`, { session_id: 's1' })
    for (const [path, body, key, near] of answers) {
      const response = await post(`${server.url}${path}`, body)
      const answer = await response.json() as { code: string; message: string }
      assert.is(response.status, 400, `${path} ${JSON.stringify(body)}`)
      assert.is(answer.code, 'INVALID_INPUT')
      assert.ok(answer.message.includes(`\`${key}\``) && answer.message.includes(`Did you mean \`${near}\`?`), answer.message)
    }
    const { items } = await server.hub.list()
    assert.equal(items.map((i) => i.session_id), ['s1'])
  } finally {
    await server.close()
  }
})

test('CLI flags: an unknown flag exits 2 naming the closest known one', async () => {
  const { code, err } = await runMain('serve', '--scripted', '--remote-image')
  assert.is(code, 2)
  assert.ok(err.includes('--remote-image.') && err.includes('Did you mean --remote-images?'), err)
  const replay = await runMain('replay', 'x.jsonl', '--jsn')
  assert.is(replay.code, 2)
  assert.ok(replay.err.includes('Did you mean --json?'), replay.err)
})

test.after(() => rmSync(dir, { recursive: true, force: true }))

test.run()
