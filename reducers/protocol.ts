// The event protocol of REFERENCE.md section 4 as a checker of whole logs: which event may follow
// which, per reply, per block and per tool call. Every log the store writes passes it; a reordered
// or cut log does not, and `replay(log, { strict: true })` refuses it before folding.
import type { AgentEvent } from '../lib/core/events.js'

interface Reply {
  id: string
  ended: boolean
  modelOpen: boolean
  /** A gentle stop was asked: nothing new starts (no model call, no tool). */
  stopping?: boolean
  blocks: Map<string, 'open' | 'closed'>
  calls: Map<string, { name: string; streaming: boolean; asked: boolean; confirmed: boolean; result: 'none' | 'open' | 'closed'; submitted: boolean }>
}

/** Every way `log` breaks the protocol, as '#seq TYPE: why' lines (none for a log the store wrote). */
export const protocolProblems = (log: readonly AgentEvent[]): string[] => {
  const problems: string[] = []
  const replies = new Map<string, Reply>()
  let current: Reply | null = null
  let lastType = ''
  // The messages waiting (issue 30): queued ones start a reply once, steers join once.
  const queued = new Set<string>()
  const steers = new Set<string>()
  log.forEach((event, i) => {
    const at = `#${i + 1} ${event.type}`
    const fail = (why: string) => problems.push(`${at}: ${why}`)
    if (event.metadata?.seq !== i + 1) fail(`metadata.seq is ${String(event.metadata?.seq)}`)
    if (event.type === 'USER_MESSAGE') {
      if (current && !current.ended) fail(`reply ${current.id} has not ended`)
      if (event.metadata.queued === true && !queued.delete(event.msg.id)) fail(`message ${event.msg.id} is not queued`)
    } else if (event.type === 'MESSAGE_QUEUED') {
      queued.add(event.msg.id)
    } else if (event.type === 'MESSAGE_UNQUEUED') {
      if (!queued.delete(event.msg_id)) fail(`message ${event.msg_id} is not queued`)
    } else if (event.type === 'REPLY_START') {
      if (lastType !== 'USER_MESSAGE') fail('does not follow a USER_MESSAGE')
      if (replies.has(event.reply_id)) fail(`reply ${event.reply_id} started twice`)
      current = { id: event.reply_id, ended: false, modelOpen: false, blocks: new Map(), calls: new Map() }
      replies.set(event.reply_id, current)
    } else if ('reply_id' in event) {
      const reply: Reply | null = current
      if (!reply || reply.id !== event.reply_id) fail(`reply ${event.reply_id} is not the current one`)
      else if (reply.ended) fail(`reply ${reply.id} has already ended`)
      else {
        checkInReply(reply, event, fail)
        checkWaiting(event, queued, steers, fail)
      }
    }
    lastType = event.type
  })
  return problems
}

/** STEER_JOINED and QUEUE_RETURNED name waiting messages; a reply's end queues the steers that did not join. */
const checkWaiting = (event: AgentEvent, queued: Set<string>, steers: Set<string>, fail: (why: string) => void): void => {
  if (event.type === 'MESSAGE_STEERED') steers.add(event.msg.id)
  if (event.type === 'STEER_JOINED') for (const id of event.msg_ids) if (!steers.delete(id)) fail(`message ${id} is not a waiting steer`)
  if (event.type === 'QUEUE_RETURNED') for (const { id } of event.returned) if (!queued.delete(id) && !steers.delete(id)) fail(`message ${id} is not waiting`)
  if (event.type === 'REPLY_END') {
    for (const id of steers) queued.add(id)
    steers.clear()
  }
}

const checkInReply = (reply: Reply, event: AgentEvent, fail: (why: string) => void): void => {
  const call = (id: string) => reply.calls.get(id)
  const openCalls = () => [...reply.calls].filter(([, c]) => c.result !== 'closed').map(([id]) => id)
  switch (event.type) {
    case 'STOP_REQUESTED':
      reply.stopping = true
      return
    case 'STEER_JOINED':
      if (reply.modelOpen) fail('a model call is open (steers join between model calls)')
      if (openCalls().length) fail(`calls without a result: ${openCalls().join(', ')}`)
      return
    case 'MODEL_CALL_START':
      if (reply.stopping) fail('a gentle stop was asked')
      if (reply.modelOpen) fail('a model call is already open')
      if (openCalls().length) fail(`calls without a result: ${openCalls().join(', ')}`)
      reply.modelOpen = true
      return
    case 'MODEL_CALL_USAGE':
      if (!reply.modelOpen) fail('no model call is open')
      return
    case 'CONTEXT_COMPACTED':
      if (reply.modelOpen) fail('a model call is open (a compaction comes between model calls)')
      if (openCalls().length) fail(`calls without a result: ${openCalls().join(', ')}`)
      return
    case 'MODEL_CALL_END': {
      if (!reply.modelOpen) fail('no model call is open')
      const open = [...reply.blocks].filter(([, s]) => s === 'open').map(([id]) => id)
      const streaming = [...reply.calls].filter(([, c]) => c.streaming).map(([id]) => id)
      if (open.length || streaming.length) fail(`blocks still open: ${[...open, ...streaming].join(', ')}`)
      reply.modelOpen = false
      return
    }
    case 'TEXT_BLOCK_START': case 'THINKING_BLOCK_START': case 'DATA_BLOCK_START':
      if (!reply.modelOpen) fail('no model call is open')
      if (reply.blocks.has(event.block_id)) fail(`block ${event.block_id} started twice`)
      reply.blocks.set(event.block_id, 'open')
      return
    case 'TEXT_BLOCK_DELTA': case 'THINKING_BLOCK_DELTA': case 'DATA_BLOCK_DELTA':
      if (reply.blocks.get(event.block_id) !== 'open') fail(`block ${event.block_id} is not open`)
      return
    case 'TEXT_BLOCK_END': case 'THINKING_BLOCK_END': case 'DATA_BLOCK_END':
      if (reply.blocks.get(event.block_id) !== 'open') fail(`block ${event.block_id} is not open`)
      reply.blocks.set(event.block_id, 'closed')
      return
    case 'TOOL_CALL_START':
      if (!reply.modelOpen) fail('no model call is open')
      if (reply.calls.has(event.tool_call_id)) fail(`call ${event.tool_call_id} started twice`)
      reply.calls.set(event.tool_call_id, { name: event.tool_call_name, streaming: true, asked: false, confirmed: false, result: 'none', submitted: false })
      return
    case 'TOOL_CALL_DELTA': case 'TOOL_CALL_END':
      if (!call(event.tool_call_id)?.streaming) fail(`call ${event.tool_call_id} is not streaming`)
      if (event.type === 'TOOL_CALL_END' && call(event.tool_call_id)) call(event.tool_call_id)!.streaming = false
      return
    case 'REQUIRE_USER_CONFIRM':
      for (const { id } of event.tool_calls) {
        const c = call(id)
        if (!c || c.streaming || c.asked || c.result !== 'none' || reply.modelOpen) fail(`call ${id} cannot be asked now`)
        else c.asked = true
      }
      return
    case 'USER_CONFIRM_RESULT':
      for (const { tool_call, confirmed } of event.confirm_results) {
        const c = call(tool_call.id)
        if (!c?.asked || c.confirmed || c.result !== 'none') fail(`call ${tool_call.id} is not waiting for a confirmation`)
        // A call renamed by its confirmation is checked again like a fresh one: it may be asked again.
        else if (confirmed && tool_call.name !== c.name) Object.assign(c, { name: tool_call.name, asked: false })
        else c.confirmed = true
      }
      return
    case 'TOOL_RESULT_START': {
      const c = call(event.tool_call_id)
      if (!c || c.streaming || c.result !== 'none' || reply.modelOpen) fail(`call ${event.tool_call_id} cannot get a result now`)
      else c.result = 'open'
      return
    }
    case 'REQUIRE_EXTERNAL_EXECUTION':
      for (const { id } of event.tool_calls) {
        const c = call(id)
        if (c?.result !== 'open' || c.submitted) fail(`call ${id} cannot be submitted now`)
        else c.submitted = true
      }
      return
    case 'TOOL_STARTED': {
      if (reply.stopping && event.metadata.not_run !== true) fail('a gentle stop was asked')
      const c = call(event.tool_call_id)
      if (c?.result !== 'open' || c.submitted) fail(`call ${event.tool_call_id} has no open result to run`)
      return
    }
    case 'RUNS_DECIDED':
      for (const id of event.tool_call_ids) if (call(id)?.result !== 'none') fail(`call ${id} cannot be decided now`)
      return
    case 'HINT_ADDED':
      if (reply.modelOpen) fail('a model call is open (a hint comes between model calls)')
      if (reply.blocks.has(event.block_id)) fail(`block ${event.block_id} added twice`)
      reply.blocks.set(event.block_id, 'closed')
      return
    case 'EXCEED_MAX_ITERS':
      if (reply.modelOpen || openCalls().length) fail('the reply still has work open')
      return
    case 'EXTERNAL_EXECUTION_RESULT':
      for (const { id } of event.execution_results) if (!call(id)?.submitted || call(id)!.result !== 'open') fail(`call ${id} is not waiting for an external result`)
      return
    case 'TOOL_RESULT_TEXT_DELTA': case 'TOOL_RESULT_DATA_DELTA': case 'TOOL_RESULT_END':
      if (call(event.tool_call_id)?.result !== 'open') fail(`the result of ${event.tool_call_id} is not open`)
      else if (event.type === 'TOOL_RESULT_END') call(event.tool_call_id)!.result = 'closed'
      return
    case 'REPLY_END': {
      const open = [...reply.blocks].filter(([, s]) => s === 'open').map(([id]) => id)
      if (reply.modelOpen || open.length || openCalls().length) fail(`ends with ${reply.modelOpen ? 'a model call, ' : ''}open blocks [${open.join(', ')}] and calls without a result [${openCalls().join(', ')}]`)
      reply.ended = true
      return
    }
    default:
      return
  }
}
