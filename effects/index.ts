// The effects an agent runs, in the order it starts them: the reply's (start, the ReAct loop, the
// interrupt, external results) at once; the queue's once a restored log's cut reply is closed.
import type { Effect } from '../lib/core/store.js'
import { advanceReply } from './advanceReply.js'
import type { AgentDeps } from './deps.js'
import { interruptReply } from './interruptReply.js'
import { recordExternalResults } from './recordExternalResults.js'
import { startQueued } from './startQueued.js'
import { startReply } from './startReply.js'

export const agentEffects: { reply: Effect<AgentDeps>[]; queue: Effect<AgentDeps>[] } = {
  reply: [startReply, advanceReply, interruptReply, recordExternalResults],
  queue: [startQueued],
}
