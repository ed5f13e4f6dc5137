// agentTool: a tool whose call runs a sub-agent, in a session and log of its own. The child's first
// REPLY_START records the call (`metadata.parent: { session_id, reply_id, tool_call_id }`), the
// call's TOOL_RESULT_START records the child (`metadata.child_session_id`). The child's text
// streams into the call's result; its end is the call's end. Stopping the parent aborts the call's
// signal, which stops the child at once (its log closes before the parent's). A child that parks
// (an approval, an external result) parks the call: the call waits as a `submitted` one, and the
// child's end answers it (see parkedCall.ts).
import { z } from 'zod'
import { Agent, createAgent, type AgentOptions } from '../agent/agent.js'
import { AgentError, describe } from '../core/errors.js'
import { checkKnownKeys, optionKeys } from '../core/strictOptions.js'
import type { ReplyEndEvent } from '../core/events.js'
import { defineTool, type Permission, type Tool, type ToolContext, type ToolOutput, type ToolResultObject } from '../agent/tools.js'
import { selectEndedReply } from '../../reducers/selectors.js'
import { structuredOutputOf } from '../../reducers/structuredOutput.js'
import { depthOf, linkChild } from './links.js'
import { treeUsage } from './tree.js'
import { answerWhenPaused, watchParkedCall } from './parkedCall.js'
import { childOutput$, DEFAULT_TEXT_INTERVAL_MS } from './childText.js'
import { registerReviver } from './revive.js'
import { openReply } from './childLogs.js'
import { DEFAULT_MAX_CONCURRENT_SUBAGENTS, withinCap } from './limit.js'
import { Observable, type Subscription } from 'rxjs'
import type { LogStore } from '../core/log.js'
import type { AgentEvent } from '../core/events.js'

/** What a sub-agent is made of: an agent's options, without the log and the session, which the tree gives it. */
export type SubagentOptions = Omit<AgentOptions, 'log' | 'session_id' | 'output'>

export const DEFAULT_MAX_DEPTH = 4

const TaskInput = z.object({ task: z.string().describe('What the sub-agent should do, with everything it needs to know') })

export interface AgentToolOptions<I extends z.ZodType> {
  name: string
  description: string
  /** The sub-agent: its options, or a function of the call's input that makes them. */
  agent: SubagentOptions | ((input: z.infer<I>, context: ToolContext) => SubagentOptions)
  /** The call's input (default `{ task: string }`). */
  input?: I
  /** The user message the sub-agent starts from (default: the `task` field, or the input as JSON). */
  prompt?: (input: z.infer<I>) => string
  /** A zod object schema: the sub-agent ends with a value of it, which is the call's result (as JSON). */
  output?: z.ZodType
  /** Calls nested deeper than this (the top-level agent is depth 0) get an `error` result (default 4). */
  maxDepth?: number
  concurrencySafe?: boolean
  permission?: Permission | ((input: z.infer<I>, state: unknown) => Permission)
  /**
   * Where each sub-agent's log goes, by its session id (default: in memory). A durable log lets a
   * parent restored from its own log (another process, a restart) reopen a parked sub-agent.
   */
  log?: (session_id: string) => LogStore
  /**
   * The least time in ms between two chunks of the sub-agent's text in the call's result stream
   * (TOOL_RESULT_TEXT_DELTAs of the parent): text after a quiet spell goes on at once, a fast stream
   * is gathered into one chunk per interval (default 16, one frame; 0: one chunk per event-loop turn).
   */
  textIntervalMs?: number
  /** More metadata for each call's TOOL_RESULT_START, made from the child's session id (a2aAgent records its remote context there). */
  startMetadata?: (child_session_id: string) => Record<string, unknown>
  /**
   * The sub-agents of this tool that run at once for one parent agent (default 16); a call past it
   * starts none and gets an `error` result saying so (LIMIT_REACHED), which the model reads.
   */
  maxConcurrentSubagents?: number
}

/** The reminder the parent's model reads when the user stopped the sub-agent alone. */
export const subagentStoppedReminder = (name: string) =>
  `<system-reminder>The sub-agent "${name}" was stopped by the user before it finished. Ask the user what should happen to the task.</system-reminder>`

const AGENT_TOOL_KEYS = optionKeys<AgentToolOptions<z.ZodType>>({
  name: true, description: true, agent: true, input: true, prompt: true, output: true, maxDepth: true, concurrencySafe: true,
  permission: true, log: true, textIntervalMs: true, startMetadata: true, maxConcurrentSubagents: true,
})

export function agentTool<I extends z.ZodType>(options: AgentToolOptions<I> & { input: I }): Tool<I>
export function agentTool(options: AgentToolOptions<typeof TaskInput>): Tool<typeof TaskInput>
export function agentTool(options: AgentToolOptions<z.ZodType>): Tool {
  if (typeof options !== 'object' || options === null) throw new AgentError('INVALID_OPTION', `agentTool expects options { name, description, agent }; received ${describe(options)}.`)
  checkKnownKeys(typeof options.name === 'string' ? `agentTool("${options.name}")` : 'agentTool', options, AGENT_TOOL_KEYS)
  const { name, description, input = TaskInput, output, maxDepth = DEFAULT_MAX_DEPTH } = options
  if (typeof options.agent !== 'function' && (typeof options.agent !== 'object' || options.agent === null))
    throw new AgentError('INVALID_OPTION', `agentTool("${name}"): agent must be the sub-agent's options ({ name, model, tools, ... }) or a function of the input returning them.`)
  if (!Number.isInteger(maxDepth) || maxDepth < 1)
    throw new AgentError('INVALID_OPTION', `agentTool("${name}"): maxDepth must be a whole number of at least 1; received ${String(maxDepth)}.`)
  const { textIntervalMs = DEFAULT_TEXT_INTERVAL_MS } = options
  if (typeof textIntervalMs !== 'number' || !Number.isFinite(textIntervalMs) || textIntervalMs < 0)
    throw new AgentError('INVALID_OPTION', `agentTool("${name}"): textIntervalMs must be a number of milliseconds, 0 or more; received ${String(textIntervalMs)}.`)
  const { maxConcurrentSubagents = DEFAULT_MAX_CONCURRENT_SUBAGENTS } = options
  if (!Number.isInteger(maxConcurrentSubagents) || maxConcurrentSubagents < 1)
    throw new AgentError('INVALID_OPTION', `agentTool("${name}"): maxConcurrentSubagents must be a whole number of at least 1; received ${describe(maxConcurrentSubagents)}.`)
  /** The calls of this tool running now, per parent agent. */
  const running = new WeakMap<object, number>()
  const prompt = options.prompt ?? ((value: unknown) => (isTask(value) ? value.task : JSON.stringify(value)))
  // The child's log: the tool's `log` option, else where the parent's tree keeps them (a hub's
  // store: AgentOptions.subagentLogs, passed on down the tree), else in memory.
  const optionsFor = (value: unknown, context: ToolContext, log: LogStore | null): AgentOptions => {
    const made = typeof options.agent === 'function' ? options.agent(value, context) : options.agent
    const subagentLogs = (context.agent as Agent | undefined)?.subagentLogs ?? undefined
    return { ...made, session_id: childSessionOf(context), ...(log && { log }), ...(subagentLogs && { subagentLogs }) }
  }
  /** A new child's options; a promise while its log is opened (a hub's store). */
  const newChild = (value: unknown, context: ToolContext): AgentOptions | Promise<AgentOptions> => {
    const session_id = childSessionOf(context)
    const logs = (context.agent as Agent | undefined)?.subagentLogs
    if (options.log || !logs) return optionsFor(value, context, options.log ? options.log(session_id) : null)
    const { reply_id = '', session_id: parent = '', tool_call_id } = context
    return logs.open(session_id, { session_id: parent, reply_id, tool_call_id }).then((log) => optionsFor(value, context, log))
  }
  const tool = defineTool({
    name, description, input, concurrencySafe: options.concurrencySafe, permission: options.permission,
    startMetadata: (_call, clock) => {
      const child_session_id = clock.id()
      return { ...options.startMetadata?.(child_session_id), child_session_id }
    },
    execute: (value, context) => withinCap(running, context.agent ?? running, maxConcurrentSubagents, name, () =>
      runChild(name, () => newChild(value, context), prompt(value), output, maxDepth, context, textIntervalMs)),
  })
  // A parked child reopened from its log: linked and watched again, or (its reply ended meanwhile:
  // a crash closed it, or it was answered before the parent recorded it) its outcome answers the call.
  registerReviver<Agent>(tool, (parent, { reply_id, tool_call_id, child_session_id, input: json, cut }) => {
    const value = input.safeParse(parseJson(json))
    if (!value.success) return null
    const log = options.log ? options.log(child_session_id) : parent.subagentLogs?.reopen(child_session_id)
    if (!log) return null
    const context: ToolContext = { signal: new AbortController().signal, tool_call_id, reply_id, session_id: parent.session_id, agent: parent, metadata: { child_session_id } }
    const wasOpen = openReply(log) !== null
    const child = createAgent(optionsFor(value.data, context, log))
    linkChild(parent, { agent: child, reply_id, tool_call_id })
    // Cut by a crash: reopening closed the child's running reply; a parked one (the parent ran other
    // calls meanwhile) is interrupted with its tree, as a Stop would; the parent closes the call next.
    if (cut) {
      if (child.state.status === 'paused') void child.interrupt()
      return child
    }
    // The child ran (resumed) while its parent waited, and a crash cut it: the tree was running, so
    // it is closed as a Stop would close it: the parent's reply is interrupted too (not resumed).
    if (wasOpen && child.state.status === 'idle') {
      void parent.interrupt()
      return child
    }
    const childReply = child.state.reply_id
    const text = childReply ? textSinceFirstPark(child.log, childReply) : ''
    const result = (end: ReplyEndEvent, after: string) => outcome(child, end, after, output !== undefined)
    const end = child.state.status === 'idle' ? [...child.log].reverse().find((e): e is ReplyEndEvent => e.type === 'REPLY_END') : undefined
    if (end) answerWhenPaused(parent, { reply_id, tool_call_id }, result(end, text))
    else watchParkedCall(parent, child, { reply_id, tool_call_id }, result, text)
    return child
  })
  return tool
}

function runChild(
  toolName: string, options: () => AgentOptions | Promise<AgentOptions>, task: string, output: z.ZodType | undefined, maxDepth: number, context: ToolContext,
  textIntervalMs: number,
): ToolOutput {
  const { agent: parent, reply_id, session_id, tool_call_id } = context
  if (!(parent instanceof Agent) || !reply_id || !session_id)
    throw new AgentError('INVALID_OPTION', `agentTool("${toolName}") runs inside an agent's reply; it was called without one.`)
  const depth = depthOf(parent) + 1
  if (depth > maxDepth) {
    const message = `MAX_DEPTH: the sub-agent "${toolName}" would run at depth ${depth}, deeper than its maxDepth ${maxDepth}. Do the task without delegating it further.`
    return { output: `Error: ${message}`, state: 'error', metadata: { error: { code: 'MAX_DEPTH', message } } }
  }
  const made = options()
  if (made instanceof Promise) return afterOpening(made, (ready) => startChild(parent, ready, task, output, context, textIntervalMs))
  return startChild(parent, made, task, output, context, textIntervalMs)
}

/** The call's output once its child's log is open (a hub's store); stopped meanwhile, the log is released and nothing runs. */
const afterOpening = (made: Promise<AgentOptions>, start: (options: AgentOptions) => Observable<string | ToolResultObject>): Observable<string | ToolResultObject> =>
  new Observable((subscriber) => {
    let stopped = false
    let inner: Subscription | null = null
    made.then((options) => {
      if (stopped) return void options.log?.close().catch(() => undefined)
      inner = start(options).subscribe(subscriber)
    }, (error: unknown) => subscriber.error(error))
    return () => {
      stopped = true
      inner?.unsubscribe()
    }
  })

const startChild = (parent: Agent, options: AgentOptions, task: string, output: z.ZodType | undefined, context: ToolContext, textIntervalMs: number): Observable<string | ToolResultObject> => {
  const { reply_id = '', session_id = '', tool_call_id } = context
  const child = createAgent(options)
  linkChild(parent, { agent: child, reply_id, tool_call_id })
  // The child's text joins the call's result as it comes (see childText.ts). Stopping the parent
  // unsubscribes the call's output, which interrupts the child's reply synchronously.
  const reply$ = () => child.reply$(task, { output, metadata: { parent: { session_id, reply_id, tool_call_id } } })
  return childOutput$(parent, reply$, !output, (end) => {
    if (end) return outcome(child, end, '', output !== undefined)
    // The child parked: so does this call, until the child's reply ends.
    watchParkedCall(parent, child, { reply_id, tool_call_id }, (childEnd, text) => outcome(child, childEnd, text, output !== undefined))
    return { output: '', state: 'submitted', metadata: { child_session_id: child.session_id } }
  }, textIntervalMs)
}

/** The call's result once the child's reply ended; `text` is the child's text not streamed into the call yet. */
const outcome = (child: Agent, end: ReplyEndEvent, text: string, structured: boolean): ToolResultObject => {
  // The usage of the child's tree, so the parent's log alone can sum a reply's tree (replyTreeUsage).
  const metadata = { child_session_id: child.session_id, usage: treeUsage(child) }
  switch (end.finished_reason) {
    case 'completed': {
      if (!structured) return { output: text, metadata }
      const msg = selectEndedReply(child.state, end.reply_id)
      const value = msg ? structuredOutputOf(msg) : null
      return { output: JSON.stringify(value), metadata: { ...metadata, structured_output: value } }
    }
    case 'interrupted':
      return { output: `${text}\n${subagentStoppedReminder(child.name)}`, state: 'interrupted', metadata }
    case 'exceed_max_iters':
      return { output: `${text}\nError: the sub-agent "${child.name}" ran out of iterations before it finished.`, state: 'error', metadata }
    default:
      return { output: `${text}\nError: the sub-agent "${child.name}" failed: ${end.error?.message ?? 'unknown error'}`, state: 'error', metadata }
  }
}

const childSessionOf = (context: ToolContext): string => {
  const id = context.metadata?.child_session_id
  if (typeof id !== 'string') throw new AgentError('INVALID_OPTION', 'agentTool: the call has no child session id on its TOOL_RESULT_START.')
  return id
}

/** The text a child streamed after its reply first parked (what its parent's call has not recorded yet). */
const textSinceFirstPark = (log: readonly AgentEvent[], reply_id: string): string => {
  let parked = false
  let text = ''
  for (const event of log) {
    if (!('reply_id' in event) || event.reply_id !== reply_id) continue
    if (event.type === 'REQUIRE_USER_CONFIRM' || event.type === 'REQUIRE_EXTERNAL_EXECUTION') parked = true
    else if (parked && event.type === 'TEXT_BLOCK_DELTA') text += event.delta
  }
  return text
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isTask = (value: unknown): value is { task: string } =>
  typeof value === 'object' && value !== null && typeof (value as { task?: unknown }).task === 'string'
