// A hub child process for the tree fault spec (treeFaults.spec.ts): a hub on the spec's store
// (PostgreSQL schema or NATS name) whose agent follows a plan in the user message (planModel) and
// whose tools count every run in a file outside the agent (one line per run). Driven by JSON lines
// on stdin: {id, op, session, ...}; answers {id, ok, ...} or {id, error: {code, message}}; a reply
// reports each pause and end it is given ({id, acked: {seq, type, reply_id}}). Prints {ready}.
import { appendFileSync } from 'node:fs'
import readline from 'node:readline'
import { createHub, type AgentError } from '../../../lib/index.js'
import { open as openStore } from '../../postgres/helpers/childStore.js'
import { planAgent } from './planModel.js'

const [name, url, counterFile] = process.argv.slice(2)
const { store } = openStore(url, name)
const count = (key: string) => appendFileSync(counterFile, `${key}\n`)
const hub = createHub({ store, agent: planAgent(count), sweepMs: 200 })
const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

interface Request { id: number; op: string; session: string; input?: string; pick?: number; decision?: string }

const handle = async (r: Request) => {
  const s = hub.session(r.session)
  switch (r.op) {
    case 'create':
      await hub.create({ session_id: r.session })
      return {}
    case 'reply': {
      let last = ''
      for await (const e of s.replyStream(r.input!)) {
        last = e.type
        if (e.type === 'REPLY_END' || e.type.startsWith('REQUIRE_')) out({ id: r.id, acked: { seq: e.metadata.seq, type: e.type, reply_id: e.reply_id } })
      }
      return { last }
    }
    case 'answer': {
      // One of the calls the tree waits for, read from the logs (any process can answer it).
      const waiting = await s.waiting()
      if (waiting.length === 0) return { answered: null }
      const call = waiting[(r.pick ?? 0) % waiting.length] as { id: string; session_id?: string; state?: string }
      const target = hub.session(call.session_id ?? r.session)
      if (call.state === 'asking') {
        if (r.decision === 'deny') await target.deny(call.id, 'no')
        else await target.approve(call.id)
      } else await target.submitResult(call.id, 'external done')
      return { answered: { id: call.id, session_id: call.session_id ?? r.session, state: call.state, decision: r.decision } }
    }
    case 'interrupt':
      await s.interrupt()
      return {}
    case 'waiting':
      return { waiting: (await s.waiting()).map((c) => ({ id: c.id, session_id: (c as { session_id?: string }).session_id ?? r.session })) }
    case 'delete':
      await hub.delete(r.session)
      return {}
    default:
      throw new Error(`unknown op ${r.op}`)
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const r = JSON.parse(line) as Request
  handle(r).then((result) => out({ id: r.id, ok: true, ...result }), (error: AgentError) => out({ id: r.id, error: { code: error?.code ?? 'THROWN', message: String(error?.message ?? error) } }))
})
out({ ready: process.pid })
