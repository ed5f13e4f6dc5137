// A child process with a hub of its own on the spec's schema, driven by JSON lines on stdin:
// {id, op, session, ...}. It answers {id, ok, ...} or {id, error: {code, message}}; a streamed reply
// also reports each event ({id, event, seq}). `loop` runs replies until killed, printing the seq of
// each REPLY_END it was given (acknowledged, so committed); `follow` prints each REPLY_END its
// follower sees. It prints {ready} when it is up.
import readline from 'node:readline'
import { createHub, type AgentError } from '../../../lib/index.js'
import { open as openLog } from './childStore.js'
import { sessionAgent, sessionTreeAgent } from '../../helpers/sessionModel.js'

const [schema, url, kind] = process.argv.slice(2)
const { store, pgStore } = openLog(url, schema)
// `tree`: the sessions' agent can delegate to sub-agents (sessionTreeAgent).
const hub = createHub({ store, agent: kind === 'tree' ? sessionTreeAgent(5) : sessionAgent(5) })
const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

interface Request { id: number; op: string; session: string; input?: string; count?: number }

const handle = async (r: Request) => {
  const s = hub.session(r.session)
  switch (r.op) {
    case 'reply': {
      const types: string[] = []
      for await (const e of s.replyStream(r.input!)) {
        types.push(e.type)
        out({ id: r.id, event: e.type, seq: e.metadata.seq })
      }
      return { types }
    }
    case 'loop': {
      for (;;) {
        for await (const e of s.replyStream(r.input!)) if (e.type === 'REPLY_END') out({ id: r.id, acked: e.metadata.seq, reply_id: e.reply_id })
      }
    }
    case 'follow': {
      // Every REPLY_END of the session, as this process's followers see it (until killed).
      store.follow(r.session).subscribe((e) => {
        if (e.type === 'REPLY_END') out({ id: r.id, followed: e.metadata.seq, session: r.session, reason: e.finished_reason })
      })
      return {}
    }
    case 'interrupt':
      await s.interrupt()
      return {}
    case 'approve': {
      const call = (await s.state()).waiting_for[0]
      return { events: (await s.dispatch({ approve: call.id })).map((e) => e.type) }
    }
    case 'open': {
      try {
        const log = await pgStore.open(r.session)
        log.append([{ id: `ev-${process.pid}`, created_at: new Date().toISOString(), metadata: { seq: 1 }, type: 'CUSTOM', name: 'owner', value: { pid: process.pid } }], { expectedSeq: 0 })
        await log.flush()
        await new Promise((resolve) => setTimeout(resolve, 200))
        await log.close()
        return { owner: true }
      } catch (error) {
        return { owner: false, code: (error as AgentError).code }
      }
    }
    case 'close':
      await hub.close()
      return {}
    default:
      throw new Error(`unknown op ${r.op}`)
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const r = JSON.parse(line) as Request
  handle(r).then((result) => {
    out({ id: r.id, ok: true, ...result })
    if (r.op === 'close') process.exit(0)
  }, (error: AgentError) => out({ id: r.id, error: { code: error.code, message: error.message } }))
})
out({ ready: process.pid })
