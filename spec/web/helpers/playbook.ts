// The agent the browser specs and the web benchmark serve: a scripted model that acts on the last
// user message ("hello", "long", "slow tool", "approve", "external", "image", "delegate", "delegate
// twice", "stream N"),
// and tools for each case: a slow streaming tool, a tool that asks, an external tool, an image tool,
// a sub-agent (research) whose agent reports, asks to send an email, and reports again.
import { z } from 'zod'
import {
  agentTool, askUser, callTool, defineTool, say, scriptedModel, usage,
  type AgentOptions, type ModelRequest, type ScriptStep, type Tool,
} from '../../../lib/index.js'
import { sleep } from '../../../lib/core/abort.js'
import { gradientPng } from '../../../lib/cli/demo/image.js'

/** A SIZE x SIZE RGB PNG with a colour gradient, as base64 (what an image tool returns). */
export const PNG_SIZE = 96
export const PNG = gradientPng(PNG_SIZE)

export const LONG_TEXT = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')

const paced = (text: string, pieces: number, ms: number): ScriptStep[] =>
  say(text, pieces).flatMap((chunk) => [{ type: 'delay', ms }, chunk])

const lastUserText = (request: ModelRequest): string => {
  const user = [...request.messages].reverse().find((m) => m.role === 'user')
  return user ? user.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() : ''
}

/** The reply so far ends with a tool result: the model sums up what the tools said. */
const afterTools = (request: ModelRequest): ScriptStep[] | null => {
  const reply = request.messages[request.messages.length - 1]
  const last = reply?.role === 'assistant' ? reply.content[reply.content.length - 1] : undefined
  if (last?.type !== 'tool_result') return null
  const said = typeof last.output === 'string' ? last.output : last.output.map((b) => (b.type === 'text' ? b.text : '[image]')).join('')
  return [...paced(`Done: ${said}`, 4, 5), usage(40, 8)]
}

const turn = (request: ModelRequest): ScriptStep[] => {
  const after = afterTools(request)
  if (after) return after
  const text = lastUserText(request)
  const id = `call-${request.messages.length}`
  const stream = /^stream (\d+)$/.exec(text)
  if (stream) return [...say('x'.repeat(Number(stream[1])), Number(stream[1])), usage(5, Number(stream[1]))]
  switch (text) {
    case 'long': return [...paced(LONG_TEXT, 200, 15), usage(12, 200)]
    case 'slow tool': return [...say('Searching.'), ...callTool(id, 'slow_search', { query: 'agents' }, 3), usage(10, 6)]
    case 'approve': return [...say('I will send it.'), ...callTool(id, 'send_email', { to: 'ann@example.com', subject: 'Hi' }, 3), usage(10, 6)]
    case 'external': return [...callTool(id, 'pick_color', { palette: 'warm' }, 2), usage(10, 4)]
    case 'ask me': return [...callTool(id, 'ask_user', { question: 'Which colour?', choices: ['red', 'blue'] }), usage(10, 4)]
    case 'image': return [...callTool(id, 'draw', { shape: 'square' }), usage(10, 4)]
    case 'delegate': return [...say('Asking the researcher.'), ...callTool(id, 'research', { task: 'tell Ann' }, 2), usage(10, 4)]
    case 'delegate twice': return [...callTool(id, 'research', { task: 'tell Ann and Bob' }), usage(10, 4)]
    default: return [{ type: 'thinking', delta: 'The user greets me.' }, ...paced('Hello! I am a scripted agent.', 6, 60), usage(12, 7)]
  }
}

/**
 * The research sub-agent: it reports, asks to send an email (the parent's page answers), then reports
 * the outcome; asked to tell Bob too, it asks again (a second pause the parent's log does not show).
 */
const researcher = (email: Tool) => agentTool({
  name: 'research', description: 'A sub-agent that researches and reports',
  agent: ({ task }) => ({
    name: 'Researcher', tools: [email],
    model: scriptedModel([
      [...paced('Checking the calendar. ', 3, 20), ...callTool('sub-email', 'send_email', { to: 'ann@example.com', subject: 'Found it' })],
      ...(task.includes('Bob') ? [[...say('Ann is told. '), ...callTool('sub-email-2', 'send_email', { to: 'bob@example.com', subject: 'Found it' })]] : []),
      (request: ModelRequest) => afterTools(request)!,
    ]),
  }),
})

export const playbookTools = (): Tool[] => {
  const tools = baseTools()
  return [...tools, researcher(tools[1]), askUser()]
}

const baseTools = (): Tool[] => [
  defineTool({
    name: 'slow_search', description: 'Streams findings slowly', input: z.object({ query: z.string() }),
    execute: async function* ({ query }, { signal }) {
      for (let i = 1; i <= 100; i++) {
        await sleep(100, signal)
        yield `finding ${i} about ${query}\n`
      }
    },
  }),
  defineTool({
    name: 'send_email', description: 'Sends an email', permission: 'ask',
    input: z.object({ to: z.string().email(), subject: z.string().min(1) }),
    execute: ({ to, subject }) => `sent "${subject}" to ${to}`,
  }),
  defineTool({ name: 'pick_color', description: 'A person picks a colour', input: z.object({ palette: z.string() }), external: true }),
  defineTool({
    name: 'draw', description: 'Draws a shape', input: z.object({ shape: z.string() }),
    execute: ({ shape }) => ({ output: [
      { type: 'text', id: 'draw-text', text: `a ${shape}`, created_at: new Date().toISOString(), finished_at: null },
      { type: 'data', id: 'draw-png', source: { type: 'base64', media_type: 'image/png', data: PNG }, created_at: new Date().toISOString(), finished_at: null },
    ] }),
  }),
]

export const playbookAgent = (): Omit<AgentOptions, 'log' | 'session_id'> => ({
  name: 'Friday',
  sysPrompt: 'You are a scripted agent.',
  model: scriptedModel([turn], { onExhausted: 'repeat-last' }),
  tools: playbookTools(),
})
