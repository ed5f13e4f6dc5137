// `agentlog chat`: an interactive terminal chat. Answers stream as they come (thinking and tool
// activity dimmed); Ctrl-C while the agent replies interrupts the reply, not the program; at an
// approval it interrupts the paused reply; twice at the prompt, or Ctrl-D, exits. Tools that ask
// prompt [y]es / [n]o / [e]dit (exactly y, yes, n, no, e or edit; [e]dit starts from the current
// arguments). With --log, a later start shows the earlier conversation and asks
// again for what a paused reply waits for. Missing configuration is one line and exit code 2.
// Lines typed while a reply runs are queued for the agent; a line starting with '!' steers the reply.
import { createAgent, type Agent, type AgentInput } from '../agent/agent.js'
import { AgentError } from '../core/errors.js'
import { isOutputEvent, type ConfirmResult, type OutputEvent } from '../core/events.js'
import { ExternalExecutionResultEvent, ToolResultBlock, UserConfirmResultEvent, UserInterruptEvent } from '../core/factories.js'
import { fileLog } from '../stores/file/index.js'
import { mcpChatTools } from './chatMcp.js'
import type { ToolCallBlock } from '../core/messages.js'
import { chatRenderer, historyLines, type Painter } from './chatRender.js'
import { chatTerminal, INTERRUPTED, type Answer, type ChatTerminal } from './chatTerminal.js'
import { chatTools } from './chatTools.js'
import { demoTools } from './demo/tools.js'
import { notFoundHint, resolveChatModel } from './chatModel.js'
import { parse, type Command, type Io } from './command.js'
import { escapeControls } from './escape.js'

const HISTORY_SHOWN = 12
/** The answers an approval accepts, exactly (any case, surrounding spaces ignored); anything else asks again. */
const APPROVAL_ANSWERS: Record<string, 'yes' | 'no' | 'edit'> = { y: 'yes', yes: 'yes', n: 'no', no: 'no', e: 'edit', edit: 'edit' }

export const chat: Command = {
  summary: 'chat with an agent in the terminal (Ctrl-C interrupts a reply)',
  usage: 'agentlog chat [--provider openai|anthropic] [--model NAME] [--base-url URL] [--scripted] [--tools] [--mcp COMMAND]... [--log FILE] [--system TEXT]',
  async run(args, io) {
    const { values } = parse(args, {
      provider: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, scripted: { type: 'boolean' },
      tools: { type: 'boolean' }, log: { type: 'string' }, system: { type: 'string' }, mcp: { type: 'string', multiple: true },
    }, [])
    const tools = values.tools === true
    const resolved = resolveChatModel({
      provider: values.provider as string | undefined, model: values.model as string | undefined,
      baseURL: values['base-url'] as string | undefined, scripted: values.scripted === true, tools,
    }, process.env)
    if ('error' in resolved) {
      io.err(`agentlog chat: ${resolved.error}`)
      return 2
    }
    const mcp = await mcpChatTools((values.mcp as string[] | undefined) ?? []).catch((error: Error) => error)
    if (mcp instanceof Error) {
      io.err(`agentlog chat: ${escapeControls(mcp.message)}`)
      return 2
    }
    const logPath = values.log as string | undefined
    const demo = tools && values.scripted === true ? demoTools().filter((t) => t.name !== 'send_email') : []
    const builtIn = [...(tools ? chatTools : []), ...demo]
    let agent: Agent
    try {
      agent = createAgent({
        name: 'assistant', model: resolved.model, tools: [...builtIn, ...mcp],
        sysPrompt: (values.system as string | undefined) ?? 'You are a helpful assistant in a terminal. Be concise.',
        log: logPath ? fileLog(logPath, { durability: 'reply' }) : undefined,
      })
    } catch (error) {
      if (!(error instanceof AgentError)) throw error
      io.err(`agentlog chat: ${error.code}: ${escapeControls(error.message)}`)
      return 1
    }
    const colour = process.stdout.isTTY && !process.env.NO_COLOR
    const paint: Painter = { dim: (s) => (colour ? `\x1b[2m${s}\x1b[0m` : s) }
    const term = chatTerminal()
    const session = new ChatSession(agent, term, paint, io, resolved.url)
    term.write(paint.dim(`agentlog chat with ${resolved.describe}${tools ? `; tools: ${builtIn.map((t) => (t.name === 'run_command' ? 'run_command (asks first)' : t.name)).join(', ')}` : ''}${mcp.length ? `; MCP tools: ${escapeControls(mcp.map((t) => t.name).join(', '))}` : ''}. Ctrl-C interrupts a reply; typing while it runs queues the next message (!text steers it); Ctrl-D exits.\n`))
    try {
      if (logPath) session.showHistory(logPath)
      if ((await session.answerPause()) === 'exit') return session.leavePaused(logPath)
      for (;;) {
        const line = await term.ask('\n> ', 'message')
        if (line === null) return 0
        if (typeof line !== 'string' || !line.trim()) continue
        await session.stream(line)
        if ((await session.answerPause()) === 'exit') return session.leavePaused(logPath)
      }
    } finally {
      term.close()
      await agent.close()
    }
  },
}

class ChatSession {
  private readonly renderer
  constructor(private readonly agent: Agent, private readonly term: ChatTerminal, private readonly paint: Painter, private readonly io: Io, private readonly url: string | null) {
    this.renderer = chatRenderer((text) => term.write(text), paint)
  }

  /**
   * Runs one reply (or its continuation) to its end or pause; Ctrl-C stops it. A line typed meanwhile
   * is queued for the agent (the next reply), or with a leading '!' steers this one (issue 30); the
   * replies the queue starts are followed here too, until it is empty.
   */
  async stream(input: AgentInput): Promise<void> {
    const controller = new AbortController()
    await this.term.whileReplying(() => controller.abort(), async () => {
      for await (const event of this.agent.replyStream(input, { signal: controller.signal })) this.show(event)
    }, (line) => this.typed(line))
    this.renderer.newline()
    while (this.agent.state.status === 'running') {
      await this.term.whileReplying(() => void this.agent.interrupt(), () => this.follow(), (line) => this.typed(line))
      this.renderer.newline()
    }
    // The reply paused instead of ending: what was typed meanwhile answers its questions, in order.
    if (this.agent.state.status !== 'paused') return
    const waiting = this.queuedLines.filter((q) => this.agent.state.queue.some((e) => e.id === q.id))
    this.queuedLines = []
    for (const { id } of waiting) await this.agent.unqueue(id)
    this.term.putBack(waiting.map((q) => q.line))
  }

  /** The lines this chat queued for the agent and their ids, oldest first. */
  private queuedLines: { id: string; line: string }[] = []

  private show(event: OutputEvent): void {
    this.renderer.render(event)
    if (event.type === 'REPLY_END' && event.error) {
      this.io.err(`agentlog chat: the model failed (${event.error.type}): ${escapeControls(event.error.message)}`)
      const hint = notFoundHint(event.error.message, this.url)
      if (hint) this.io.err(`agentlog chat: ${hint}`)
    }
  }

  /** A line typed while a reply runs: '!text' steers it, anything else is queued. */
  private typed(line: string): void {
    const steer = line.startsWith('!')
    const text = steer ? line.slice(1).trim() : line
    if (!text) return
    const done = steer ? this.agent.steer(text) : this.agent.queue(text).then(({ id }) => void this.queuedLines.push({ id, line }))
    this.term.write(`\n${this.paint.dim(`(${steer ? 'steered into this reply' : 'queued for the next reply'})`)} ${escapeControls(text)}\n`)
    done.catch((error: unknown) => this.io.err(`agentlog chat: ${escapeControls(error instanceof Error ? error.message : String(error))}`))
  }

  /** The reply a queued message started: its output events until it ends or pauses. */
  private follow(): Promise<void> {
    const { reply_id } = this.agent.state
    return new Promise((resolve) => {
      const subscription = this.agent.events$.subscribe((event) => {
        if (isOutputEvent(event) && event.reply_id === reply_id) this.show(event)
        if (this.agent.state.status !== 'running' || this.agent.state.reply_id !== reply_id) {
          queueMicrotask(() => subscription.unsubscribe())
          resolve()
        }
      })
    })
  }

  /** While the reply is paused: asks for every waiting call, sends the answers, and goes on; 'exit' at the end of input. */
  async answerPause(): Promise<'exit' | 'done'> {
    for (let state = this.agent.state; state.status === 'paused'; state = this.agent.state) {
      const reply_id = state.reply_id!
      const asking = state.waiting_for.filter((c) => c.state === 'asking')
      const answers: ConfirmResult[] = []
      const results: ToolResultBlock[] = []
      for (const call of asking.length ? asking : state.waiting_for) {
        const answer = asking.length ? await this.askApproval(call) : await this.askResult(call)
        if (answer === null) return 'exit'
        if (answer === INTERRUPTED) {
          await this.stream(UserInterruptEvent({ reply_id }))
          return 'done'
        }
        if ('confirmed' in answer) answers.push(answer)
        else results.push(answer)
      }
      await this.stream(answers.length ? UserConfirmResultEvent({ reply_id, confirm_results: answers }) : ExternalExecutionResultEvent({ reply_id, execution_results: results }))
    }
    return 'done'
  }

  private async askApproval(call: ToolCallBlock): Promise<ConfirmResult | null | typeof INTERRUPTED> {
    for (;;) {
      this.term.write(`\n${escapeControls(call.name)} wants to run with ${escapeControls(call.input)}\n`)
      const answer: Answer = await this.term.ask('  [y]es / [n]o / [e]dit (Ctrl-C interrupts)? ', 'answer')
      if (typeof answer !== 'string') return answer
      const choice = APPROVAL_ANSWERS[answer.trim().toLowerCase()]
      if (choice === 'yes') return { confirmed: true, tool_call: call, rules: null }
      if (choice === 'no') return { confirmed: false, tool_call: call, rules: null }
      if (choice !== 'edit') {
        this.term.write('  answer y (yes), n (no) or e (edit).\n')
        continue
      }
      const edited = await this.term.ask('  new input (JSON): ', 'answer', call.input)
      if (typeof edited !== 'string') return edited
      try {
        JSON.parse(edited)
        return { confirmed: true, tool_call: { ...call, input: edited }, rules: null }
      } catch {
        this.term.write('  that is not valid JSON.\n')
      }
    }
  }

  private async askResult(call: ToolCallBlock): Promise<ToolResultBlock | null | typeof INTERRUPTED> {
    this.term.write(`\n${escapeControls(call.name)} runs outside this chat, with ${escapeControls(call.input)}\n`)
    const answer = await this.term.ask('  its result (one line; Ctrl-C interrupts): ', 'answer')
    return typeof answer === 'string' ? ToolResultBlock({ id: call.id, name: call.name, output: answer }) : answer
  }

  /** The conversation so far, briefly (the last messages), and the paused reply if there is one. */
  showHistory(logPath: string): void {
    const { context, reply_msg, status } = this.agent.state
    if (!context.length && !reply_msg) return
    const shown = context.slice(-HISTORY_SHOWN)
    const skipped = context.length - shown.length
    this.term.write(this.paint.dim(`── earlier in ${escapeControls(logPath)}${skipped ? ` (the last ${shown.length} of ${context.length} messages)` : ''} ──\n`))
    for (const msg of shown) for (const line of historyLines(msg, this.paint)) this.term.write(`${line}\n`)
    if (reply_msg) for (const line of historyLines(reply_msg, this.paint)) this.term.write(`${line}\n`)
    this.term.write(this.paint.dim(status === 'paused' ? '── the last reply is paused, waiting for your answer ──\n' : '──\n'))
  }

  leavePaused(logPath: string | undefined): number {
    this.term.write(this.paint.dim(logPath ? `(the reply stays paused; agentlog chat --log ${escapeControls(logPath)} asks again)\n` : '(the paused reply is dropped with this chat)\n'))
    return 0
  }
}
