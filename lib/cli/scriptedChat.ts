// The scripted model of `agentlog chat --scripted`: canned answers that stream slowly enough to
// watch and to interrupt, no key and no network. With --tools, its first reply calls the built-in
// tools (the time, then a shell command that asks first), so approvals can be tried without a key.
import type { ModelRequest } from '../model.js'
import { callTool, say, scriptedModel, think, type ScriptStep } from '../scriptedModel.js'

const LONG = 'This is a long answer that streams word by word so that you can press Ctrl-C in the middle of it and see the reply stop at once, with the partial text kept in the conversation.'

/** A tool call id unique in the log: the conversation's length at the call. */
const idFor = (request: ModelRequest, name: string) => `${name}-${request.messages.reduce((n, m) => n + m.content.length, 0)}`

const lastResult = (request: ModelRequest) => {
  const reply = request.messages.at(-1)
  const result = reply ? [...reply.content].reverse().find((b) => b.type === 'tool_result') : undefined
  return result?.type === 'tool_result' ? result : undefined
}

/** The tool turns of the first reply: the time, then a command (asks first), then a summary of what happened. */
const toolTurn = (request: ModelRequest): ScriptStep[] => {
  const result = lastResult(request)
  if (!result) return [...say('Let me look at the clock first.', 6), ...callTool(idFor(request, 'time'), 'current_time', {})]
  if (result.name === 'current_time')
    return [...say('Now a shell command. It asks you first: answer y, n, or e to edit it.', 10), ...callTool(idFor(request, 'cmd'), 'run_command', { command: 'echo hello from the scripted model' })]
  const how = result.state === 'success' ? 'The command ran; its output is above.'
    : result.state === 'denied' ? 'You denied the command, so I did not run it.'
      : `The command ended with state "${result.state}".`
  return [...say(`${how} Ask me anything else: the next answer is long, so you can interrupt it with Ctrl-C.`, 12)]
}

export const scriptedChatModel = ({ tools }: { tools: boolean }) => {
  const greeting = [...think('A greeting; answer briefly.', 2), ...say('Hello! I am the scripted model: I stream canned answers, so you can try streaming and Ctrl-C without a key.', 12)]
  const turns = tools
    ? [(request: ModelRequest) => toolTurn(request), (request: ModelRequest) => toolTurn(request), (request: ModelRequest) => toolTurn(request), [...say(LONG, 30)]]
    : [greeting, [...say(LONG, 30)], [...say('Still here. Every answer after this one repeats it.', 6)]]
  return scriptedModel(turns, { chunkDelayMs: 60, onExhausted: 'repeat-last', name: 'scripted' })
}
