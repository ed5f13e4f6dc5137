// A SessionHandle: the agent's surface for one session, wherever its owner runs. A reply runs on
// the live agent when this process owns the session (opening it on demand); commands go through
// the hub's `run`, which routes them to the owner elsewhere. `state()` of a session nobody here
// holds is folded from the store (from its snapshot, when the store keeps one).
import type { Observable } from 'rxjs'
import type { AgentEvent, OutputEvent } from '../events.js'
import type { Msg } from '../messages.js'
import type { ReplyOptions } from '../replyRun.js'
import type { AgentInput } from '../agent.js'
import { replay } from '../../reducers/root.js'
import type { AgentState } from '../../reducers/state.js'
import { toMessage } from './commands.js'
import { isBusyElsewhere, type HubCore } from './hub.js'
import { remoteReply } from './remoteReply.js'
import type { SessionHandle } from './types.js'

/** The live session for a reply, or null when another process owns it (and the store can route). */
const ownedHere = async (core: HubCore, session_id: string) => {
  try {
    return await core.acquire(session_id)
  } catch (error) {
    if (isBusyElsewhere(error) && core.options.store.routing) return null
    throw error
  }
}

async function* stream(core: HubCore, session_id: string, input: AgentInput | string, options: ReplyOptions = {}): AsyncGenerator<OutputEvent> {
  const session = await ownedHere(core, session_id)
  if (!session) return yield* remoteReply(core, session_id, input, options).events()
  const release = core.use(session)
  try {
    yield* session.agent.replyStream(toMessage(input), options)
  } finally {
    release()
  }
}

export const sessionHandle = (core: HubCore, session_id: string): SessionHandle => ({
  session_id,
  replyStream: (input, options) => stream(core, session_id, input, options),
  async reply(input: AgentInput | string, options: ReplyOptions = {}): Promise<Msg> {
    const session = await ownedHere(core, session_id)
    if (!session) return remoteReply(core, session_id, input, options).result()
    const release = core.use(session)
    try {
      return await session.agent.reply(toMessage(input), options)
    } finally {
      release()
    }
  },
  dispatch: (input) => core.run(session_id, { op: 'input', input }),
  async interrupt() {
    await core.run(session_id, { op: 'interrupt' })
  },
  approve: (tool_call_id, options = {}) => core.run(session_id, { op: 'approve', tool_call_id, input: options.input }),
  deny: (tool_call_id, reason) => core.run(session_id, { op: 'deny', tool_call_id, reason }),
  submitResult: (tool_call_id, result) => core.run(session_id, { op: 'submit', tool_call_id, result }),
  async state(): Promise<AgentState> {
    const session = core.live(session_id)
    if (session) return session.agent.state
    const store = core.options.store
    return store.state ? store.state(session_id) : replay(await store.read(session_id))
  },
  follow: (options): Observable<AgentEvent> => core.options.store.follow(session_id, options),
})
