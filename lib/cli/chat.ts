// `agentlog chat`: an interactive terminal chat. Answers stream as they come (thinking and tool
// activity dimmed); Ctrl-C while the agent replies interrupts the reply, not the program (Ctrl-C
// again at the prompt, or Ctrl-D, exits); tools that ask prompt [y]es / [n]o / [e]dit. Missing
// configuration is a one-line error and exit code 2.
import { createInterface } from 'node:readline'
import { createAgent } from '../agent.js'
import { UserConfirmResultEvent, UserMsg } from '../factories.js'
import { fileLog } from '../fileLog.js'
import type { ConfirmResult, OutputEvent } from '../events.js'
import { mcpChatTools } from './chatMcp.js'
import { chatTools } from './chatTools.js'
import { resolveChatModel } from './chatModel.js'
import { parse, type Command } from './command.js'
import { lineReader } from './lineReader.js'

const tty = process.stdout.isTTY && !process.env.NO_COLOR
const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s)

export const chat: Command = {
  summary: 'chat with an agent in the terminal (Ctrl-C interrupts a reply)',
  usage: 'agentlog chat [--provider openai|anthropic] [--model NAME] [--base-url URL] [--scripted] [--tools] [--mcp COMMAND]... [--log FILE] [--system TEXT]',
  async run(args, io) {
    const { values } = parse(args, {
      provider: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, scripted: { type: 'boolean' },
      tools: { type: 'boolean' }, log: { type: 'string' }, system: { type: 'string' }, mcp: { type: 'string', multiple: true },
    }, [])
    const resolved = resolveChatModel({
      provider: values.provider as string | undefined, model: values.model as string | undefined,
      baseURL: values['base-url'] as string | undefined, scripted: values.scripted === true,
    }, process.env)
    if ('error' in resolved) {
      io.err(`agentlog chat: ${resolved.error}`)
      return 2
    }
    const mcp = await mcpChatTools((values.mcp as string[] | undefined) ?? []).catch((error: Error) => error)
    if (mcp instanceof Error) {
      io.err(`agentlog chat: ${mcp.message}`)
      return 2
    }
    const agent = createAgent({
      name: 'assistant', model: resolved.model, tools: [...(values.tools ? chatTools : []), ...mcp],
      sysPrompt: (values.system as string | undefined) ?? 'You are a helpful assistant in a terminal. Be concise.',
      log: values.log ? fileLog(values.log as string, { durability: 'reply' }) : undefined,
    })
    const lines = lineReader(createInterface({ input: process.stdin, terminal: process.stdin.isTTY }))
    let replying: AbortController | null = null
    let armedExit = false
    const onInterrupt = () => {
      if (replying) return replying.abort()
      if (armedExit) return lines.close()
      armedExit = true
      io.err('\n(press Ctrl-C again or Ctrl-D to exit)')
    }
    process.on('SIGINT', onInterrupt)
    lines.onSigint(onInterrupt)
    io.err(dim(`agentlog chat with ${resolved.describe}${values.tools ? ', tools: current_time, read_file, run_command' : ''}${mcp.length ? `, MCP tools: ${mcp.map((t) => t.name).join(', ')}` : ''}. Ctrl-C interrupts a reply; Ctrl-D exits.`))
    try {
      for (;;) {
        process.stdout.write('\n> ')
        const line = await lines.next()
        if (line === null) break
        armedExit = false
        if (!line.trim()) continue
        let input: Parameters<typeof agent.replyStream>[0] = UserMsg({ content: line })
        for (;;) {
          replying = new AbortController()
          for await (const event of agent.replyStream(input, { signal: replying.signal })) render(event, io)
          replying = null
          if (agent.state.status !== 'paused') break
          const confirm_results: ConfirmResult[] = []
          for (const call of agent.state.waiting_for) {
            const answer = await askPermission(lines, call.name, call.input)
            if (answer === null) return 0
            confirm_results.push({ confirmed: answer.confirmed, tool_call: { ...call, input: answer.input ?? call.input }, rules: null })
          }
          input = UserConfirmResultEvent({ reply_id: agent.state.reply_id!, confirm_results })
        }
      }
      return 0
    } finally {
      process.off('SIGINT', onInterrupt)
      lines.close()
      await agent.close()
      process.stdout.write('\n')
    }
  },
}

const askPermission = async (lines: ReturnType<typeof lineReader>, name: string, input: string) => {
  for (;;) {
    process.stdout.write(`\n${name} wants to run with ${input}\n  [y]es / [n]o / [e]dit? `)
    const answer = await lines.next()
    if (answer === null) return null
    const key = answer.trim().toLowerCase()[0]
    if (key === 'y') return { confirmed: true }
    if (key === 'n') return { confirmed: false }
    if (key === 'e') {
      process.stdout.write('  new input (JSON): ')
      const edited = await lines.next()
      if (edited === null) return null
      try {
        JSON.parse(edited)
        return { confirmed: true, input: edited }
      } catch {
        process.stdout.write('  that is not valid JSON.\n')
      }
    }
  }
}

const render = (event: OutputEvent, io: { err(text: string): void }) => {
  switch (event.type) {
    case 'TEXT_BLOCK_DELTA':
      return void process.stdout.write(event.delta)
    case 'THINKING_BLOCK_DELTA':
    case 'TOOL_CALL_DELTA':
      return void process.stdout.write(dim(event.delta))
    case 'THINKING_BLOCK_END':
    case 'TEXT_BLOCK_END':
      return void process.stdout.write('\n')
    case 'TOOL_CALL_START':
      return void process.stdout.write(dim(`→ ${event.tool_call_name} `))
    case 'TOOL_CALL_END':
      return void process.stdout.write('\n')
    case 'TOOL_RESULT_TEXT_DELTA':
      return void process.stdout.write(dim(event.delta.length > 400 ? `${event.delta.slice(0, 400)}…` : event.delta))
    case 'TOOL_RESULT_END':
      return void process.stdout.write(dim(` [${event.state}]\n`))
    case 'REPLY_END':
      if (event.finished_reason === 'interrupted') process.stdout.write(dim('\n[interrupted]'))
      if (event.error) io.err(`\nagentlog chat: the model failed (${event.error.type}): ${event.error.message}`)
  }
}
